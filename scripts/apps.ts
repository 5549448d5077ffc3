/**
 * npm run apps -- create --org <id> --provider <provider> [--name N] [--points-field F] [--json]
 * npm run apps -- create --org <id> --provider copilot|cursor|claude_code --token-file <file> [--github-org <slug> |
 *                 --github-enterprise <slug>] [--base-url <url>] [--name N] [--json]
 * npm run apps -- list [--org <id>] [--json]
 * npm run apps -- rotate-secret|disable|enable <id> [--json]
 * npm run apps -- rotate-secret <id> --end-grace [--json]
 * npm run apps -- map --app <id> --board <key> (--team <id> | --repository <id>) [--json]
 * npm run apps -- unmap --app <id> --board <key> [--repository <id>] [--json]
 * npm run apps -- mappings <id> [--json]
 * npm run apps -- map-status --app <id> --status <name> --to <category> [--json]
 * npm run apps -- link-user --app <id> --user <id|email> --external-id <id> [--json]
 * npm run apps -- link-users --app <id> --csv <file> [--dry-run] [--json]
 * npm run apps -- unlinked --app <id> [--json]
 * npm run apps -- set-credential --app <id> --token-file <file> [--json]
 *
 * Apps connect an organization's trackers, chat, incident tools, deployment scripts and AI vendors (docs/trackers.md#apps).
 * `create` and `rotate-secret` print the webhook secret once; it is stored sealed with SECRETS_KEY (on the embedded
 * default, data/secrets.key). Exit codes: 0 done, 1 refused (unknown organization, app, team or member), failure, or
 * a link-users file some of whose lines were refused (its good lines linked all the same), 2 usage error.
 */
import fs from 'node:fs';
import { App, TASK_STATUSES, TaskStatus } from '../db/models';
import { Config, publicBase } from '../src/config';
import { invalid, notFound } from '../src/errors';
import { ChangeRunner } from '../src/persistence/changes/change';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { AppWriter, BoardTarget } from '../src/services/apps/apps';
import { appMappings, AppView, boardView, describeApp, listApps, userLinkView } from '../src/services/apps/appViews';
import { providerCatalog } from '../src/integrations/catalog';

import { checkVendorBaseUrl, VendorAccess } from '../src/services/apps/vendorSources';
import { UNLINKED_LIMIT } from '../src/services/people/unmatchedAccounts';
import { outboundPolicy } from '../src/outbound/outboundFetch';
import { APP_LINKS } from '../src/services/people/linkTables';
import { AccountLinkWriter } from '../src/services/people/accountLinks';
import { accountLinkUsage, LinkUsersCommand, parseLinkUsers, parseUnlinked, runLinkUsers, runUnlinked, UnlinkedCommand } from './accountLinks';
import { ConnectionCredentials, connectionsWithCredential } from '../src/services/apps/credentials';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';
import { parseSetCredential, runSetCredential, SetCredentialCommand, setCredentialUsage } from './credentials';

/** The registry's providers: those an app may connect, and what each takes. */
const PROVIDERS = providerCatalog();
const APP_PROVIDER_IDS = PROVIDERS.appProviders.map((p) => p.id);

const USAGE = `Usage:
  npm run apps -- create --org <id> --provider <provider> [--name <name>] [--points-field <field>] [--json]
  npm run apps -- create --org <id> --provider copilot|cursor|claude_code --token-file <file>
                         [--github-org <slug> | --github-enterprise <slug>] [--base-url <url>] [--name <name>] [--json]
  npm run apps -- list [--org <id>] [--json]
  npm run apps -- rotate-secret <app id> [--end-grace] [--json]
  npm run apps -- set-secret --app <id> --secret-file <file> [--json]
${setCredentialUsage('apps')}
  npm run apps -- disable <app id> [--json]
  npm run apps -- enable <app id> [--json]
  npm run apps -- map --app <id> --board <key> (--team <team id> | --repository <repository id>) [--json]
  npm run apps -- unmap --app <id> --board <key> [--repository <id>] [--json]
  npm run apps -- mappings <app or git app id> [--json]
  npm run apps -- map-status --app <id> --status <name> --to ${TASK_STATUSES.join('|')} [--json]
  npm run apps -- link-user --app <id> --user <user id|email> --external-id <account id> [--json]
${accountLinkUsage('apps', '--app')}

create         connects a provider for the organization and prints its webhook URL and secret once.
                 --provider      ${APP_PROVIDER_IDS.join(', ')}
                 --name          what lists show (default: the provider's name)
                 --points-field  Jira only: the issue field holding story points, e.g. customfield_10016
                 --token-file    an AI vendor only, and required: the file holding the key or token the vendor
                                 issued (docs/ai-vendors.md says which, with the least scope it needs); stored
                                 sealed, never printed
                 --github-org, --github-enterprise
                                 Copilot only, one of them: whose usage metrics reports are read
                 --base-url      an AI vendor only: the API's root when not the vendor's public one (GitHub
                                 Enterprise Server: https://HOST/api/v3); https, at a public address (plain
                                 http and private addresses only with WEBHOOK_ALLOW_PRIVATE=1, for tests)
                 --json          print {"id","webhook_url","secret"} on one line
list           shows apps (all, or one organization's) with their webhook URLs, never a secret, and whether a
               credential is set (never its value); an AI vendor's app with its last pull (--json: its result too).
rotate-secret  makes a new secret and prints it once; the previous one is still accepted for 24 hours.
                 --end-grace  makes no new secret: refuses the previous one (replaced by rotate-secret or
                              set-secret) at once instead of at the end of its 24 hours, for a secret that leaked
set-secret     stores the secret the provider made instead (Linear's webhooks sign with one of their own),
               read from a file so that it is in neither the shell's history nor the process list; the
               previous one is still accepted for 24 hours. For an AI vendor's app: its new credential.
set-credential stores what the history importers read the provider's API with (${PROVIDERS.readByApi.filter((p) => p.category !== 'git').map((p) => p.id).join(', ')}): a
               token, read from --token-file, sealed, never printed; a second one replaces it. For an AI
               vendor's app, its new credential, as set-secret stores it. --json prints {"id","kind","updated_at"}.
disable        refuses the app's deliveries until it is enabled; what it brought stays.
enable         accepts them again.
map            ties a board (a Jira project key, a Linear team key, a GitHub owner/repo, a GitLab project path,
               a PagerDuty service id, an Opsgenie team) to a team (tasks) or a repository (incidents,
               deployments); what the board brought before is placed at once. --app may be a git app id.
               An incident tool's board may be mapped to several repositories, one map each: its incidents
               count for each; its deployments go to the first mapped.
unmap          unties it from its team or every repository (--repository: that one only): its tasks count
               for the organization only, its incidents for the repositories left.
mappings       shows an app's (or a git app's) boards and status overrides.
map-status     counts a status name (any case, e.g. "Blocked") in another category.
link-user      links a member's account on the app (its user id there) by hand, for payloads without e-mail; a
               member's earlier account there is replaced.
link-users     links the accounts of a CSV file, header line "account,email" (the account id on the app, the
               member's e-mail), in one change; each bad line is reported by its number with why (unknown
               e-mail, not a member of the app's organization, an account or e-mail given twice, an account
               another member holds, a member linked to another account, a malformed line) and the good ones
               are linked all the same. Exit code 1 when a line was refused.
                 --dry-run  changes nothing: says what would be linked and which lines match no member
                 --json     print {"linked","already_linked","rejected","dry_run"}
unlinked       lists the app's accounts with activity (tasks assigned, messages) and no member, the
               ${UNLINKED_LIMIT} busiest first, counted since this version.

The webhook URL is PUBLIC_URL (default http://localhost:$PORT) + /ingest/<provider>/<id>. Target database:
DATABASE_URL (mysql://..., which also needs SECRETS_KEY) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'create'; org: string; provider: string; name?: string; pointsField?: string; vendor?: VendorFlags; json: boolean }
  | { kind: 'list'; org?: string; json: boolean }
  | { kind: 'rotate-secret' | 'end-grace' | 'disable' | 'enable' | 'mappings'; id: string; json: boolean }
  | { kind: 'map'; app: string; board: string; target: BoardTarget; json: boolean }
  | { kind: 'unmap'; app: string; board: string; repository?: string; json: boolean }
  | { kind: 'map-status'; app: string; status: string; category: TaskStatus; json: boolean }
  | { kind: 'link-user'; app: string; user: string; externalId: string; json: boolean }
  | { kind: 'set-secret'; app: string; secretFile: string; json: boolean }
  | LinkUsersCommand
  | UnlinkedCommand
  | SetCredentialCommand;

/** How an AI vendor's app is read, as given: the credential's file is read when the command runs. */
interface VendorFlags {
  tokenFile: string;
  account?: { kind: 'organization' | 'enterprise'; slug: string };
  baseUrl?: string;
}

const COMMANDS = 'create, list, rotate-secret, set-secret, set-credential, disable, enable, map, unmap, mappings, map-status, link-user, link-users or unlinked';

const ONE_ID: Record<string, string> = {
  'rotate-secret': 'app id (see "apps list")',
  disable: 'app id (see "apps list")',
  enable: 'app id (see "apps list")',
  mappings: 'app or git app id',
};


const isTaskStatus = (value: string): value is TaskStatus => (TASK_STATUSES as readonly string[]).includes(value);

/** What the database keeps of each flag's value, at most. */
const MAX_LENGTH: Record<string, number> = { name: 200, 'points-field': 100, board: 200, status: 200, 'external-id': 200, 'github-org': 39, 'github-enterprise': 39, 'base-url': 500 };

/** A flag's value, if given: not empty, not longer than what is kept. */
function optional(flag: string, value: string | undefined): string | undefined {
  const given = nonEmpty(`--${flag}`, value)?.trim();
  const max = MAX_LENGTH[flag];
  if (given !== undefined && max !== undefined && given.length > max) throw new UsageError(`--${flag} has at most ${max} characters`);
  return given;
}

/** A flag the command cannot do without. */
function required(command: string, flag: string, what: string, value: string | undefined): string {
  const given = optional(flag, value);
  if (given === undefined) throw new UsageError(`${command} needs --${flag} <${what}>`);
  return given;
}

/** An AI vendor's flags, required there and refused elsewhere, so that a mistyped provider is not read as another. */
function vendorFlags(provider: string, v: Partial<Record<'token-file' | 'github-org' | 'github-enterprise' | 'base-url', string>>): VendorFlags | undefined {
  const tokenFile = optional('token-file', v['token-file']);
  const org = optional('github-org', v['github-org']);
  const enterprise = optional('github-enterprise', v['github-enterprise']);
  const baseUrl = optional('base-url', v['base-url']);
  const vendor = PROVIDERS.vendor(provider);
  if (!vendor) {
    const given = [tokenFile && '--token-file', org && '--github-org', enterprise && '--github-enterprise', baseUrl && '--base-url'].filter(Boolean);
    if (given.length) throw new UsageError(`${given.join(', ')}: only for an AI vendor's app (${PROVIDERS.appProviders.filter((p) => p.puller).map((p) => p.id).join(', ')})`);
    return undefined;
  }
  if (tokenFile === undefined) throw new UsageError(`create --provider ${provider} needs --token-file <file holding the key the vendor issued>`);
  if (org !== undefined && enterprise !== undefined) throw new UsageError('give --github-org or --github-enterprise, not both');
  if (vendor.readsGithubAccount && org === undefined && enterprise === undefined) throw new UsageError(`create --provider ${provider} needs --github-org <slug> or --github-enterprise <slug>`);
  const account = org !== undefined ? { kind: 'organization' as const, slug: org } : enterprise !== undefined ? { kind: 'enterprise' as const, slug: enterprise } : undefined;
  return { tokenFile, ...(account ? { account } : {}), ...(baseUrl ? { baseUrl } : {}) };
}

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`a command is required: ${COMMANDS}`);
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'create': {
      const { values } = parse(rest, {
        org: { type: 'string' },
        provider: { type: 'string' },
        name: { type: 'string' },
        'points-field': { type: 'string' },
        'token-file': { type: 'string' },
        'github-org': { type: 'string' },
        'github-enterprise': { type: 'string' },
        'base-url': { type: 'string' },
        json: { type: 'boolean' },
      });
      const v = values as { org?: string; provider?: string; name?: string; 'points-field'?: string; json?: boolean } & Partial<Record<'token-file' | 'github-org' | 'github-enterprise' | 'base-url', string>>;
      const org = required('create', 'org', 'organization id', v.org);
      const provider = v.provider ?? '';
      if (!APP_PROVIDER_IDS.includes(provider)) throw new UsageError(`create needs --provider ${APP_PROVIDER_IDS.join('|')}${provider ? ` (got '${provider}')` : ''}`);
      const name = optional('name', v.name);
      const pointsField = optional('points-field', v['points-field']);
      const vendor = vendorFlags(provider, v);
      return { kind: 'create', org, provider, ...(name ? { name } : {}), ...(pointsField ? { pointsField } : {}), ...(vendor ? { vendor } : {}), json: v.json ?? false };
    }
    case 'list': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; json?: boolean };
      return { kind: 'list', org: nonEmpty('--org', v.org), json: v.json ?? false };
    }
    case 'rotate-secret':
    case 'disable':
    case 'enable':
    case 'mappings': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' }, ...(command === 'rotate-secret' ? { 'end-grace': { type: 'boolean' } } : {}) }, true);
      if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one ${ONE_ID[command]}`);
      const v = values as { json?: boolean; 'end-grace'?: boolean };
      return { kind: v['end-grace'] ? 'end-grace' : command, id: nonEmpty(ONE_ID[command], positionals[0])!, json: v.json ?? false };
    }
    case 'map': {
      const { values } = parse(rest, { app: { type: 'string' }, board: { type: 'string' }, team: { type: 'string' }, repository: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { app?: string; board?: string; team?: string; repository?: string; json?: boolean };
      const app = required('map', 'app', 'app or git app id', v.app);
      const board = required('map', 'board', 'board key', v.board);
      const team = optional('team', v.team);
      const repository = optional('repository', v.repository);
      const target: BoardTarget | undefined = team !== undefined && repository === undefined ? { teamId: team } : repository !== undefined && team === undefined ? { repositoryId: repository } : undefined;
      if (!target) throw new UsageError('map needs either --team <team id> (tasks) or --repository <repository id> (incidents, deployments)');
      return { kind: 'map', app, board, target, json: v.json ?? false };
    }
    case 'unmap': {
      const { values } = parse(rest, { app: { type: 'string' }, board: { type: 'string' }, repository: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { app?: string; board?: string; repository?: string; json?: boolean };
      const repository = optional('repository', v.repository);
      return { kind: 'unmap', app: required('unmap', 'app', 'app or git app id', v.app), board: required('unmap', 'board', 'board key', v.board), ...(repository ? { repository } : {}), json: v.json ?? false };
    }
    case 'map-status': {
      const { values } = parse(rest, { app: { type: 'string' }, status: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { app?: string; status?: string; to?: string; json?: boolean };
      const app = required('map-status', 'app', 'app or git app id', v.app);
      const status = required('map-status', 'status', 'status name', v.status);
      const category = v.to ?? '';
      if (!isTaskStatus(category)) throw new UsageError(`map-status needs --to ${TASK_STATUSES.join('|')}${category ? ` (got '${category}')` : ''}`);
      return { kind: 'map-status', app, status, category, json: v.json ?? false };
    }
    case 'link-user': {
      const { values } = parse(rest, { app: { type: 'string' }, user: { type: 'string' }, 'external-id': { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { app?: string; user?: string; 'external-id'?: string; json?: boolean };
      return {
        kind: 'link-user',
        app: required('link-user', 'app', 'app id', v.app),
        user: required('link-user', 'user', 'user id or e-mail', v.user),
        externalId: required('link-user', 'external-id', "the member's account id on the app", v['external-id']),
        json: v.json ?? false,
      };
    }
    case 'link-users':
      return parseLinkUsers(rest, 'app');
    case 'unlinked':
      return parseUnlinked(rest, 'app');
    case 'set-credential':
      return parseSetCredential(rest, 'app');
    case 'set-secret': {
      const { values } = parse(rest, { app: { type: 'string' }, 'secret-file': { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { app?: string; 'secret-file'?: string; json?: boolean };
      return {
        kind: 'set-secret',
        app: required('set-secret', 'app', 'app id', v.app),
        secretFile: required('set-secret', 'secret-file', 'file holding the secret the provider showed', v['secret-file']),
        json: v.json ?? false,
      };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use ${COMMANDS}`);
  }
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, out: (s: string) => void): Promise<void | number> {
  const writer = new AppWriter(ChangeRunner.for(App.sequelize!), new SecretBox(() => secretsKeyFor(config)), PROVIDERS);
  const base = publicBase(config);
  const print = (json: boolean, value: unknown, text: string) => out(json ? `${JSON.stringify(value)}\n` : text);
  switch (cmd.kind) {
    case 'create':
    case 'rotate-secret': {
      if (cmd.kind === 'create' && cmd.vendor?.baseUrl !== undefined) await checkVendorBaseUrl(cmd.vendor.baseUrl, outboundPolicy(config));
      const { app, secret } =
        cmd.kind === 'create'
          ? await writer.create(cmd.org, cmd.provider, { name: cmd.name, pointsField: cmd.pointsField, vendor: cmd.vendor && vendorAccess(cmd.vendor) })
          : await writer.rotateSecret(cmd.id);
      const view = await describeApp(base, PROVIDERS, app);
      if (cmd.json) return out(`${JSON.stringify({ id: app.id, webhook_url: view.webhook_url, secret })}\n`);
      const heading = `${cmd.kind === 'create' ? 'Created' : 'New secret for'} app ${app.id} (${app.provider}, ${app.category}, organization ${app.organization_id})\n`;
      if (secret === null) {
        return out(
          `${heading}\n${PROVIDERS.nameOf(app.provider)} is read by the service with the credential stored sealed now; it is never shown ` +
            'again. The worker pulls yesterday\'s usage each day; "npm run import -- ai --app ' +
            `${app.id}" pulls the days before (docs/ai-vendors.md).\n`,
        );
      }
      const rotated = cmd.kind === 'rotate-secret' && app.previous_webhook_secret;
      return out(
        `${heading}  webhook URL: ${view.webhook_url}\n` +
          (app.provider === 'deployments' ? `               (POST to ${view.webhook_url}/deployments and ${view.webhook_url}/incidents)\n` : '') +
          `\n  ${secret}\n\n` +
          'Copy the secret now into the provider\'s webhook settings (docs/trackers.md#apps says where): it is shown only this once.\n' +
          (rotated ? `The previous secret is still accepted for ${PREVIOUS_SECRET_GRACE_MS / 3_600_000} hours; if it leaked, "apps rotate-secret ${app.id} --end-grace" refuses it now.\n` : ''),
      );
    }
    case 'end-grace': {
      const { app, ended } = await writer.endSecretGrace(cmd.id);
      return print(
        cmd.json,
        await describeApp(base, PROVIDERS, app),
        ended ? `The previous secret of app ${app.id} is refused from now on: only the current one is accepted.\n` : `App ${app.id} has no previous secret still accepted: only the current one is.\n`,
      );
    }
    case 'list': {
      const rows = await listApps(base, PROVIDERS, cmd.org);
      if (cmd.json || rows.length === 0) return print(cmd.json, rows, 'No apps.\n');
      const withCredential = await connectionsWithCredential(rows.map((r) => r.id));
      const header = ['ID', 'ORGANIZATION', 'PROVIDER', 'CATEGORY', 'NAME', 'ACTIVE', 'SECRET', 'CREDENTIAL', 'WEBHOOK URL', 'LAST PULL', 'CREATED'];
      const cells = rows.map((r) => [r.id, r.organization_id, r.provider, r.category, r.name, r.is_active ? 'yes' : 'no', r.has_secret ? 'set' : 'none', credentialCell(r, withCredential), r.webhook_url ?? '-', lastPull(r), r.created_at]);
      return out(`${table([header, ...cells])}\n`);
    }
    case 'disable':
    case 'enable': {
      const app = await writer.setActive(cmd.id, cmd.kind === 'enable');
      const said = cmd.kind === 'enable' ? `Enabled ${app.id}: its deliveries are accepted.\n` : `Disabled ${app.id}: its deliveries are refused until "apps enable ${app.id}"; what it brought stays.\n`;
      return print(cmd.json, await describeApp(base, PROVIDERS, app), said);
    }
    case 'map': {
      const board = boardView(await writer.map(cmd.app, cmd.board, cmd.target));
      return print(cmd.json, board, `Mapped board ${board.board} of ${board.app_id} to ${board.team_id ? `team ${board.team_id}` : `repository ${board.repository_id}`}; what it brought is placed there now.\n`);
    }
    case 'unmap': {
      const to = cmd.repository ? ` to repository ${cmd.repository}` : '';
      if (!(await writer.unmap(cmd.app, cmd.board, {}, cmd.repository))) throw notFound(`Board ${cmd.board} of ${cmd.app} is not mapped${to} (see npm run apps -- mappings ${cmd.app})`);
      const said = cmd.repository ? 'its incidents count for the repositories left' : 'what it brought counts for the organization only';
      const from = cmd.repository ? ` from repository ${cmd.repository}` : '';
      return print(cmd.json, { app_id: cmd.app, board: cmd.board, ...(cmd.repository ? { repository_id: cmd.repository } : {}) }, `Unmapped board ${cmd.board} of ${cmd.app}${from}: ${said}.\n`);
    }
    case 'mappings': {
      const mappings = await appMappings(writer, cmd.id);
      if (cmd.json) return out(`${JSON.stringify(mappings)}\n`);
      const boards = mappings.boards.length
        ? table([['BOARD', 'TEAM', 'REPOSITORY', 'MAPPED'], ...mappings.boards.map((b) => [b.board, b.team_id ?? '-', b.repository_id ?? '-', b.created_at])])
        : 'No boards mapped.';
      const statuses = mappings.statuses.length ? table([['STATUS', 'COUNTED AS'], ...mappings.statuses.map((s) => [s.status, s.category])]) : 'No status overrides.';
      return out(`${boards}\n\n${statuses}\n`);
    }
    case 'map-status': {
      const { tasks } = await writer.mapStatus(cmd.app, cmd.status, cmd.category);
      const status = cmd.status.trim();
      return print(cmd.json, { app_id: cmd.app, status, category: cmd.category, tasks }, `"${status}" of ${cmd.app} now counts as ${cmd.category}; ${tasks} task${tasks === 1 ? '' : 's'} derived again.\n`);
    }
    case 'link-user': {
      const link = userLinkView(await writer.linkUser(cmd.app, cmd.user, cmd.externalId));
      return print(cmd.json, link, `Linked account ${link.external_user_id} of ${link.app_id} to ${link.user_id}.\n`);
    }
    case 'link-users':
      return runLinkUsers(new AccountLinkWriter(ChangeRunner.for(App.sequelize!)), APP_LINKS, cmd, out);
    case 'unlinked':
      return runUnlinked(APP_LINKS, cmd, out);
    case 'set-credential':
      return runSetCredential(new ConnectionCredentials(ChangeRunner.for(App.sequelize!), new SecretBox(() => secretsKeyFor(config)), PROVIDERS), 'app', cmd, out);
    case 'set-secret': {
      const app = await writer.setSecret(cmd.app, secretFrom(cmd.secretFile));
      const view = await describeApp(base, PROVIDERS, app);
      if (view.vendor) return print(cmd.json, view, `Stored the new credential of app ${app.id}, sealed; the next pull uses it.\n`);
      return print(
        cmd.json,
        view,
        `Stored the provider's secret for app ${app.id}; deliveries signed with it are accepted at ${view.webhook_url}` +
          (app.previous_webhook_secret ? `, and the previous secret for ${PREVIOUS_SECRET_GRACE_MS / 3_600_000} more hours` : '') +
          '.\n',
      );
    }
  }
}

/** Whether the app has the credential its provider's API is read with (an AI vendor's: its pulls'); '-' for one that takes none. */
function credentialCell(app: AppView, withCredential: Set<string>): string {
  if (app.vendor) return app.has_secret ? 'set' : 'none';
  if (withCredential.has(app.id)) return 'set';
  return PROVIDERS.find(app.provider)?.apiCredential ? 'none' : '-';
}

/** An AI vendor's app's last pull, in a list's cell: when and how it went, or '-' for an app that is not pulled. */
function lastPull(app: AppView): string {
  if (!app.vendor) return '-';
  if (app.vendor.pulled_at === null) return app.vendor.failing ? 'failing' : 'never';
  const { held } = app.vendor;
  const days = held.days ? `, ${held.days} day${held.days === 1 ? '' : 's'} held ${held.first} to ${held.last}` : ', no day held';
  return `${app.vendor.pulled_at}${app.vendor.failing ? ' (failing)' : ''}${days}`;
}

/** The vendor's access, its credential read from its file. */
function vendorAccess(flags: VendorFlags): VendorAccess {
  return { credential: secretFrom(flags.tokenFile, '--token-file'), ...(flags.account ? { account: flags.account } : {}), ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}) };
}

/** The secret from its file, without the line break an editor leaves. */
function secretFrom(file: string, flag = '--secret-file'): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw invalid(`Cannot read ${flag} ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('apps', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('apps', main);
