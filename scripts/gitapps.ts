/**
 * npm run gitapps -- create --org <id> --provider <git provider> --name <name> [--json]
 * npm run gitapps -- list [--org <id>] [--json]
 * npm run gitapps -- rotate-secret <id> [--end-grace] [--json]
 * npm run gitapps -- restore-repository <repository id> [--json]
 *
 * Git apps connect an organization's repositories at a git provider (docs/ingest.md). `create` and `rotate-secret`
 * print the webhook secret once; it is stored sealed with SECRETS_KEY (on the embedded default, data/secrets.key).
 * Exit codes: 0 done, 1 bad input (unknown organization or git app) or failure, 2 usage error.
 */
import { GitApp } from '../db/models';
import { gitAppView, listGitApps } from '../src/services/git/apps/gitAppViews';
import { Config, publicBase } from '../src/config';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { ChangeRunner } from '../src/persistence/changes/change';
import { GitAppWriter } from '../src/services/git/apps/gitApps';
import { GitActivityWriter } from '../src/services/git/writer';
import { providerCatalog } from '../src/integrations/catalog';
import { toRepository } from '../src/resources/git';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';

/** The registry's providers: those a git app may connect, and what to set at each. */
const PROVIDERS = providerCatalog();
const GIT_PROVIDER_IDS = PROVIDERS.gitProviders.map((p) => p.id);

const USAGE = `Usage:
  npm run gitapps -- create --org <id> --provider ${GIT_PROVIDER_IDS.join('|')} --name <name> [--json]
  npm run gitapps -- list [--org <id>] [--json]
  npm run gitapps -- rotate-secret <id> [--end-grace] [--json]
  npm run gitapps -- restore-repository <repository id> [--json]

create         makes a git app for the organization and prints its webhook URL and secret once.
                 --json  print {"id","webhook_url","secret"} on one line
list           shows git apps (all, or one organization's) with their webhook URLs, never a secret.
rotate-secret  makes a new secret and prints it once; the previous one is still accepted for 24 hours,
               while you paste the new one into the provider's webhook settings.
                 --end-grace  makes no new secret: refuses the previous one at once instead of at the end
                              of its 24 hours, for a secret that leaked
restore-repository  brings back a repository its provider reported deleted, with all it held, while its
               grace lasts (REPOSITORY_DELETE_GRACE_DAYS); a delivery of the provider for it does the same.
                 --json  print the repository as /v1 lists it

The webhook URL is PUBLIC_URL (default http://localhost:$PORT) + /ingest/<provider>/<id>. Target database:
DATABASE_URL (mysql://..., which also needs SECRETS_KEY) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'create'; org: string; provider: string; name: string; json: boolean }
  | { kind: 'list'; org?: string; json: boolean }
  | { kind: 'rotate-secret' | 'end-grace'; id: string; json: boolean }
  | { kind: 'restore-repository'; id: string; json: boolean };

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: create, list, rotate-secret or restore-repository');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'create': {
      const { values } = parse(rest, { org: { type: 'string' }, provider: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; provider?: string; name?: string; json?: boolean };
      const org = nonEmpty('--org', v.org);
      const name = nonEmpty('--name', v.name);
      if (!org) throw new UsageError('create needs --org <organization id>');
      if (!name) throw new UsageError('create needs --name <name> (e.g. "GitHub acme-corp")');
      const provider = GIT_PROVIDER_IDS.find((id) => id === v.provider);
      if (!provider) throw new UsageError(`create needs --provider ${GIT_PROVIDER_IDS.join('|')}${v.provider ? ` (got '${v.provider}')` : ''}`);
      if (name.length > 200) throw new UsageError('--name has at most 200 characters');
      return { kind: 'create', org, provider, name, json: v.json ?? false };
    }
    case 'list': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; json?: boolean };
      return { kind: 'list', org: nonEmpty('--org', v.org), json: v.json ?? false };
    }
    case 'rotate-secret': {
      const { values, positionals } = parse(rest, { 'end-grace': { type: 'boolean' }, json: { type: 'boolean' } }, true);
      if (positionals.length !== 1) throw new UsageError('rotate-secret needs exactly one git app id (see "gitapps list")');
      const v = values as { 'end-grace'?: boolean; json?: boolean };
      return { kind: v['end-grace'] ? 'end-grace' : 'rotate-secret', id: nonEmpty('git app id', positionals[0])!, json: v.json ?? false };
    }
    case 'restore-repository': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, true);
      if (positionals.length !== 1) throw new UsageError('restore-repository needs exactly one repository id (repo_…, as /v1/git/apps/{id}/repositories listed it)');
      return { kind: 'restore-repository', id: nonEmpty('repository id', positionals[0])!, json: (values as { json?: boolean }).json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use create, list, rotate-secret or restore-repository`);
  }
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, out: (s: string) => void): Promise<void> {
  const writer = new GitAppWriter(ChangeRunner.for(GitApp.sequelize!), new SecretBox(() => secretsKeyFor(config)), PROVIDERS);
  switch (cmd.kind) {
    case 'create':
    case 'rotate-secret': {
      const { gitApp, secret } = cmd.kind === 'create' ? await writer.create(cmd.org, cmd.provider, cmd.name) : await writer.rotateSecret(cmd.id);
      const url = gitAppView(publicBase(config), PROVIDERS, gitApp).webhook_url;
      const setup = url ? PROVIDERS.find(gitApp.provider)?.setup : undefined;
      if (cmd.json) {
        out(`${JSON.stringify({ id: gitApp.id, webhook_url: url, secret })}\n`);
        return;
      }
      const rotated = cmd.kind === 'rotate-secret' && gitApp.previous_webhook_secret;
      out(
        `${cmd.kind === 'create' ? 'Created' : 'New secret for'} git app ${gitApp.id} (${gitApp.provider}, organization ${gitApp.organization_id})\n` +
          `  webhook URL: ${url ?? `none: ${gitApp.provider} webhooks are not received`}\n` +
          (setup ? `  settings:    ${setup}\n` : '') +
          `\n  ${secret}\n\n` +
          'Copy the secret now into the webhook settings: it is shown only this once.\n' +
          (rotated ? `The previous secret is still accepted for ${PREVIOUS_SECRET_GRACE_MS / 3_600_000} hours; if it leaked, "gitapps rotate-secret ${gitApp.id} --end-grace" refuses it now.\n` : ''),
      );
      return;
    }
    case 'end-grace': {
      const { gitApp, ended } = await writer.endSecretGrace(cmd.id);
      if (cmd.json) return out(`${JSON.stringify(gitAppView(publicBase(config), PROVIDERS, gitApp))}\n`);
      return out(
        ended
          ? `The previous secret of git app ${gitApp.id} is refused from now on: only the current one is accepted.\n`
          : `Git app ${gitApp.id} has no previous secret still accepted: only the current one is.\n`,
      );
    }
    case 'restore-repository': {
      const repository = await new GitActivityWriter(ChangeRunner.for(GitApp.sequelize!), PROVIDERS).restoreRepository(cmd.id);
      if (cmd.json) return out(`${JSON.stringify(toRepository(repository))}\n`);
      return out(`Repository ${repository.id} (${repository.full_name}) of git app ${repository.git_app_id} is back, with its commits, pull requests, deployments and incidents.\n`);
    }
    case 'list': {
      const rows = await listGitApps(publicBase(config), PROVIDERS, cmd.org);
      if (cmd.json) {
        out(`${JSON.stringify(rows)}\n`);
        return;
      }
      if (rows.length === 0) {
        out('No git apps.\n');
        return;
      }
      const header = ['ID', 'ORGANIZATION', 'PROVIDER', 'NAME', 'ACTIVE', 'SECRET', 'WEBHOOK URL', 'CREATED'];
      const cells = rows.map((r) => [r.id, r.organization_id, r.provider, r.name, r.is_active ? 'yes' : 'no', r.has_secret ? 'set' : 'none', r.webhook_url ?? '-', r.created_at]);
      out(`${table([header, ...cells])}\n`);
      return;
    }
  }
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('gitapps', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('gitapps', main);
