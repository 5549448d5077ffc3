/**
 * npm run gitapps -- create --org <id> --provider <git provider> --name <name> [--json]
 * npm run gitapps -- list [--org <id>] [--json]
 * npm run gitapps -- rotate-secret <id> [--end-grace] [--json]
 * npm run gitapps -- restore-repository <repository id> [--json]
 * npm run gitapps -- link-user --git-app <id> --user <id|email> --username <login> [--json]
 * npm run gitapps -- link-users --git-app <id> --csv <file> [--dry-run] [--json]
 * npm run gitapps -- unlinked --git-app <id> [--json]
 * npm run gitapps -- set-credential --git-app <id> (--token-file <file> |
 *                    --github-app-id <n> --private-key-file <file> --installation-id <n>) [--json]
 *
 * Git apps connect an organization's repositories at a git provider (docs/ingest.md). `create` and `rotate-secret`
 * print the webhook secret once; it is stored sealed with SECRETS_KEY (on the embedded default, data/secrets.key), as
 * `set-credential`'s token or key is, which is never printed.
 * Exit codes: 0 done, 1 bad input (unknown organization, git app or member), failure, or a link-users file some of
 * whose lines were refused (its good lines linked all the same), 2 usage error.
 */
import { GitApp } from '../db/models';
import { gitAppView, gitUserLinkView, listGitApps } from '../src/services/git/apps/gitAppViews';
import { AccountLinkWriter } from '../src/services/people/accountLinks';
import { GIT_APP_LINKS } from '../src/services/people/linkTables';
import { UNLINKED_LIMIT } from '../src/services/people/unmatchedAccounts';
import { accountLinkUsage, LinkUsersCommand, parseLinkUsers, parseUnlinked, runLinkUsers, runUnlinked, UnlinkedCommand } from './accountLinks';
import { Config, publicBase } from '../src/config';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { ChangeRunner } from '../src/persistence/changes/change';
import { GitAppWriter } from '../src/services/git/apps/gitApps';
import { GitActivityWriter } from '../src/services/git/writer';
import { providerCatalog } from '../src/integrations/catalog';
import { toRepository } from '../src/resources/git';
import { ConnectionCredentials, connectionsWithCredential } from '../src/services/apps/credentials';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';
import { parseSetCredential, runSetCredential, SetCredentialCommand, setCredentialUsage } from './credentials';

/** The registry's providers: those a git app may connect, and what to set at each. */
const PROVIDERS = providerCatalog();
const GIT_PROVIDER_IDS = PROVIDERS.gitProviders.map((p) => p.id);

const USAGE = `Usage:
  npm run gitapps -- create --org <id> --provider ${GIT_PROVIDER_IDS.join('|')} --name <name> [--json]
  npm run gitapps -- list [--org <id>] [--json]
  npm run gitapps -- rotate-secret <id> [--end-grace] [--json]
  npm run gitapps -- restore-repository <repository id> [--json]
  npm run gitapps -- link-user --git-app <id> --user <user id|email> --username <login> [--json]
${accountLinkUsage('gitapps', '--git-app')}
${setCredentialUsage('gitapps')}

create         makes a git app for the organization and prints its webhook URL and secret once.
                 --json  print {"id","webhook_url","secret"} on one line
list           shows git apps (all, or one organization's) with their webhook URLs, never a secret, and
               whether a credential is set (never its value).
rotate-secret  makes a new secret and prints it once; the previous one is still accepted for 24 hours,
               while you paste the new one into the provider's webhook settings.
                 --end-grace  makes no new secret: refuses the previous one at once instead of at the end
                              of its 24 hours, for a secret that leaked
restore-repository  brings back a repository its provider reported deleted, with all it held, while its
               grace lasts (REPOSITORY_DELETE_GRACE_DAYS); a delivery of the provider for it does the same.
                 --json  print the repository as /v1 lists it
link-user      links a member to their user name (login) at the git provider by hand, as a push that names
               both their e-mail and their user name does: pull requests, reviews and commits that arrive
               under it from then on count for them (what was stored before stays as it was); a member's
               earlier user name on the git app is replaced.
link-users     links the user names of a CSV file, header line "account,email" (the user name, the member's
               e-mail), in one change; each bad line is reported by its number with why (unknown e-mail, not
               a member of the git app's organization, a user name or e-mail given twice, a user name another
               member holds, a member linked to another user name, a malformed line) and the good ones are
               linked all the same. Exit code 1 when a line was refused.
                 --dry-run  changes nothing: says what would be linked and which lines match no member
                 --json     print {"linked","already_linked","rejected","dry_run"}
unlinked       lists the user names (and commit authors' e-mails) with activity (commits, pull requests,
               reviews, issues assigned) and no member, the ${UNLINKED_LIMIT} busiest first, counted since this version.
set-credential stores what the history importers read the provider's API with, sealed, never printed; read from
               a file so that it is in neither the shell's history nor the process list; a second one replaces it.
                 --token-file        a file holding one token (GitHub, GitLab, Bitbucket)
                 --github-app-id, --private-key-file, --installation-id
                                     a GitHub git app only, instead of a token: the App's id, its private key
                                     (.pem, as GitHub downloads it) and the id of its installation on the account
                 --json              print {"id","kind","updated_at"}

The webhook URL is PUBLIC_URL (default http://localhost:$PORT) + /ingest/<provider>/<id>. Target database:
DATABASE_URL (mysql://..., which also needs SECRETS_KEY) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'create'; org: string; provider: string; name: string; json: boolean }
  | { kind: 'list'; org?: string; json: boolean }
  | { kind: 'rotate-secret' | 'end-grace'; id: string; json: boolean }
  | { kind: 'restore-repository'; id: string; json: boolean }
  | { kind: 'link-user'; gitApp: string; user: string; username: string; json: boolean }
  | LinkUsersCommand
  | UnlinkedCommand
  | SetCredentialCommand;

const COMMANDS = 'create, list, rotate-secret, restore-repository, link-user, link-users, unlinked or set-credential';

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`a command is required: ${COMMANDS}`);
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
    case 'link-user': {
      const { values } = parse(rest, { 'git-app': { type: 'string' }, user: { type: 'string' }, username: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { 'git-app'?: string; user?: string; username?: string; json?: boolean };
      const gitApp = nonEmpty('--git-app', v['git-app'])?.trim();
      const user = nonEmpty('--user', v.user)?.trim();
      const username = nonEmpty('--username', v.username)?.trim();
      if (!gitApp) throw new UsageError('link-user needs --git-app <git app id>');
      if (!user) throw new UsageError('link-user needs --user <user id or e-mail>');
      if (!username) throw new UsageError("link-user needs --username <the member's user name at the git provider>");
      if (username.length > 200) throw new UsageError('--username has at most 200 characters');
      return { kind: 'link-user', gitApp, user, username, json: v.json ?? false };
    }
    case 'link-users':
      return parseLinkUsers(rest, 'git-app');
    case 'unlinked':
      return parseUnlinked(rest, 'git-app');
    case 'set-credential':
      return parseSetCredential(rest, 'git-app');
    default:
      throw new UsageError(`unknown command "${command}"; use ${COMMANDS}`);
  }
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, out: (s: string) => void): Promise<void | number> {
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
    case 'link-user': {
      const link = gitUserLinkView(await new AccountLinkWriter(ChangeRunner.for(GitApp.sequelize!)).linkUser(GIT_APP_LINKS, cmd.gitApp, cmd.user, cmd.username));
      return out(cmd.json ? `${JSON.stringify(link)}\n` : `Linked user name ${link.username} of ${link.git_app_id} to ${link.user_id}.\n`);
    }
    case 'link-users':
      return runLinkUsers(new AccountLinkWriter(ChangeRunner.for(GitApp.sequelize!)), GIT_APP_LINKS, cmd, out);
    case 'unlinked':
      return runUnlinked(GIT_APP_LINKS, cmd, out);
    case 'set-credential':
      return runSetCredential(new ConnectionCredentials(ChangeRunner.for(GitApp.sequelize!), new SecretBox(() => secretsKeyFor(config)), PROVIDERS), 'git_app', cmd, out);
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
      const withCredential = await connectionsWithCredential(rows.map((r) => r.id));
      const credential = (r: (typeof rows)[number]) => (withCredential.has(r.id) ? 'set' : PROVIDERS.find(r.provider)?.apiCredential ? 'none' : '-');
      const header = ['ID', 'ORGANIZATION', 'PROVIDER', 'NAME', 'ACTIVE', 'SECRET', 'CREDENTIAL', 'WEBHOOK URL', 'CREATED'];
      const cells = rows.map((r) => [r.id, r.organization_id, r.provider, r.name, r.is_active ? 'yes' : 'no', r.has_secret ? 'set' : 'none', credential(r), r.webhook_url ?? '-', r.created_at]);
      out(`${table([header, ...cells])}\n`);
      return;
    }
  }
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('gitapps', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('gitapps', main);
