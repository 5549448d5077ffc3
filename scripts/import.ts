/**
 * npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]
 * npm run import -- jira --app <id> --site <https://x.atlassian.net> --email <e> --token-file <f> [--since <date>] [--base-url <url>] [--json]
 * npm run import -- linear --app <id> --key-file <file> [--since <date>] [--base-url <url>] [--json]
 * npm run import -- slack --app <id> --token-file <file> [--base-url <url>] [--json]
 * npm run import -- ai --app <id> [--since <day>] [--until <day>] [--json]
 * npm run import -- github|gitlab|bitbucket --git-app <id> [--since] [--until] [--repos <a,b>] [--base-url] [--json]
 * npm run import -- pagerduty|opsgenie|slack --app <id> [--since] [--until] [--repos <a,b>] [--base-url] [--json]
 *
 * Backfills a repository's history (docs/ingest.md) from `git log` of a local clone: commits with author, message,
 * line counts and dates, in batches of 500, each one change on the write path (docs/architecture.md#writers). Commits already stored are
 * skipped, so a second run adds nothing; commits a push stored without line counts get them.
 * Backfills a tracker's issues with their status history into a Jira or Linear app (docs/trackers.md#trackers): each
 * page of the provider's search is one change of the task writer; tasks are unique per app and issue, so a second
 * run (or a webhook's delivery of the same issue) adds nothing.
 * Links a Slack workspace's members to the organization's members by e-mail (docs/conversations.md#linking-accounts).
 * Pulls an AI vendor's app's usage over a range of days (docs/ai-vendors.md#how-a-pull-goes), each day in place of what
 * an earlier pull stored for it.
 * Reads a connection's history from its provider's API (docs/history.md): scripts/importHistory.ts. Slack's first links
 * the workspace's members by e-mail, as `slack --token-file` does, so that their conversations count.
 * Exit codes: 0 done, 1 bad input (unknown git app or app, not a clone, the provider refusing) or failure, 2 usage error.
 */
import fs from 'node:fs';
import { GitApp } from '../db/models';
import { loadConfig } from '../src/config';
import { DomainError } from '../src/errors';
import { CloneError, commitsOfClone, repositoryOfClone } from '../src/integrations/git/importer';
import { JiraImportError, jiraIssuePages } from '../src/integrations/jira/importer';
import { LINEAR_API_URL, LinearImportError, linearIssuePages } from '../src/integrations/linear/importer';
import { SLACK_API_URL, SlackImportError, slackAccountPages } from '../src/integrations/slack/importer';

import { providerCatalog } from '../src/integrations/catalog';
import { jira } from '../src/integrations/jira';
import { linear } from '../src/integrations/linear';
import { slack } from '../src/integrations/slack';

import { checkDestination, OutboundPolicy, outboundPolicy, RefusedDestination } from '../src/outbound/outboundFetch';
import { SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { AppWriter } from '../src/services/apps/apps';
import { ChangeRunner } from '../src/persistence/changes/change';
import { importingApp, trackerApp } from '../src/services/apps/taskSource';
import { GitActivityWriter } from '../src/services/git/writer';
import { defaultHttp } from '../src/outbound/providerHttp';
import { daysBetween, summary as pullSummary, VendorPulls } from '../src/services/aiVendors/vendorPulls';
import type { TaskInput, TaskSource } from '../src/services/work/taskInput';
import { TaskWriter } from '../src/services/work/taskWriter';
import { commandOrExit, nonEmpty, openServerDatabase, parse, runCli, ServerDatabase, UsageError } from './cli';
import { HISTORY_PROVIDERS, HISTORY_USAGE, HistoryCommand, importHistory, parseHistory } from './importHistory';
import { ConnectionCredentials } from '../src/services/apps/credentials';

const USAGE = `Usage:
  npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]
  npm run import -- jira --app <id> --site <https://x.atlassian.net> --email <e> --token-file <f> [--since <date>] [--base-url <url>] [--json]
  npm run import -- linear --app <id> --key-file <file> [--since <date>] [--base-url <url>] [--json]
  npm run import -- slack --app <id> --token-file <file> [--base-url <url>] [--json]
  npm run import -- ai --app <id> [--since <day>] [--until <day>] [--json]
  npm run import -- github|gitlab|bitbucket --git-app <id> [--since] [--until] [--repos <a,b>] [--base-url <url>] [--json]
  npm run import -- pagerduty|opsgenie|slack --app <id> [--since] [--until] [--repos <a,b>] [--base-url <url>] [--json]

git   imports the commits reachable from the clone's HEAD into a repository of the git app.
        --name  the repository's full name (owner/repo); default: the path of the clone's
                'origin' remote, else the directory's name. Use the name the provider shows, so
                the import and the provider's webhooks fill the same repository.
        --json  print {"repository_id","repository","commits_read","commits_added",
                "stats_filled","seconds"} on one line

jira  imports a Jira Cloud site's issues, with their status history, into a Jira app's tasks.
        --app         the Jira app (npm run apps -- list); its points field names the story points
        --site        the site, e.g. https://example.atlassian.net
        --email       the Atlassian account the API token belongs to
        --token-file  a file holding the API token (id.atlassian.com → Security → API tokens)
        --since       only issues updated since this date (YYYY-MM-DD or ISO 8601); default: all
        --base-url    send the requests here instead of the site (a proxy, or a test's fake)
        --json        print {"app_id","site","pages","issues","created","updated","unchanged",
                      "seconds"} on one line

linear  imports a Linear app's issues with their state history (GraphQL API), 50 a page.
        --key-file  a file holding a Linear API key (Settings → Security & access → Personal
                    API keys) or an OAuth access token; never given on the command line
        --since     only issues updated since this date (YYYY-MM-DD or an ISO 8601 time)
        --base-url  the API's root (default ${LINEAR_API_URL})
        --json      print {"app_id","pages","issues","created","updated","unchanged",
                    "seconds"} on one line

slack --token-file
       links a Slack app's workspace members to the organization's members with the same e-mail
       (users.list), so their messages become conversations.
        --token-file  a file holding the Slack app's bot token (xoxb-…; scopes users:read and
                      users:read.email)
        --base-url    the Web API's root (default ${SLACK_API_URL})
        --json        print {"app_id","accounts","linked","unchanged","unmatched","seconds"} on one line
       Without --token-file: its history (below), after linking the members with the stored credential.

ai    pulls an AI vendor's app's usage (GitHub Copilot's reports, Cursor's daily usage, Claude Code's
      analytics), a UTC day at a time, with the credential stored with the app (npm run apps -- create
      --provider copilot|cursor|claude_code --token-file …).
        --since  the first day (YYYY-MM-DD); default: 27 days before --until
        --until  the last day (YYYY-MM-DD); default: yesterday (UTC)
        --json   print {"app_id","stored":[{"day","accounts","matched"}],"without_report",
                 "refused":[{"day","reason"}],"credential_refused","seconds"} on one line
      Exit 1 when the vendor refused the credential or refused a day (the other days are kept).

${HISTORY_USAGE}

Run any of them again at any time: what is already stored is not stored twice.`;

export type JiraCommand = { kind: 'jira'; app: string; site: string; email: string; tokenFile: string; since?: Date; baseUrl?: string; json: boolean };
export type LinearCommand = { kind: 'linear'; app: string; keyFile: string; since?: Date; baseUrl: string; json: boolean };
export type SlackCommand = { kind: 'slack'; app: string; tokenFile: string; baseUrl: string; json: boolean };
export type AiCommand = { kind: 'ai'; app: string; since: string; until: string; json: boolean };
export type Command = { kind: 'help' } | { kind: 'git'; gitApp: string; name?: string; clone: string; json: boolean } | JiraCommand | LinearCommand | SlackCommand | AiCommand | HistoryCommand;

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  const sources = ['git', 'jira', 'linear', 'ai', ...HISTORY_PROVIDERS.map((p) => p.id)].join(', ');
  if (command === undefined) throw new UsageError(`a source is required: ${sources}`);
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (command === 'jira') return parseJira(rest);
  if (command === 'linear') return parseLinear(rest);
  if (command === 'slack' && rest.some((a) => a === '--token-file' || a.startsWith('--token-file='))) return parseSlack(rest);
  if (command === 'ai') return parseAi(rest);
  if (HISTORY_PROVIDERS.some((p) => p.id === command)) return parseHistory(command, rest);
  if (command !== 'git') throw new UsageError(`unknown source "${command}"; this importer reads ${sources}`);
  const { values, positionals } = parse(rest, { 'git-app': { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } }, true);
  const v = values as { 'git-app'?: string; name?: string; json?: boolean };
  const gitApp = nonEmpty('--git-app', v['git-app']);
  if (!gitApp) throw new UsageError('git needs --git-app <id> (see npm run gitapps -- list)');
  if (positionals.length !== 1) throw new UsageError('git needs exactly one path: the clone to read');
  const name = nonEmpty('--name', v.name);
  if (name !== undefined && name.length > 200) throw new UsageError('--name has at most 200 characters');
  return { kind: 'git', gitApp, name, clone: positionals[0], json: v.json ?? false };
}

function parseLinear(argv: string[]): LinearCommand {
  const { values } = parse(argv, { app: { type: 'string' }, 'key-file': { type: 'string' }, since: { type: 'string' }, 'base-url': { type: 'string' }, json: { type: 'boolean' } });
  const v = values as { app?: string; 'key-file'?: string; since?: string; 'base-url'?: string; json?: boolean };
  const app = nonEmpty('--app', v.app);
  if (!app) throw new UsageError('linear needs --app <id> (see npm run apps -- list)');
  const keyFile = nonEmpty('--key-file', v['key-file']);
  if (!keyFile) throw new UsageError('linear needs --key-file <file>: a file holding a Linear API key');
  const since = nonEmpty('--since', v.since);
  if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(Date.parse(since)))) throw new UsageError(`--since must be a date (YYYY-MM-DD) or an ISO 8601 time; got "${since}"`);
  const baseUrl = nonEmpty('--base-url', v['base-url']) ?? LINEAR_API_URL;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw new UsageError(`--base-url must be an http(s) URL; got "${baseUrl}"`);
  return { kind: 'linear', app, keyFile, since: since === undefined ? undefined : new Date(since), baseUrl, json: v.json ?? false };
}

/** At most a year a run: the vendors keep about that much (GitHub: a year; Anthropic and Cursor say no limit). */
const MAX_AI_DAYS = 366;

function parseAi(argv: string[], today = new Date()): AiCommand {
  const { values } = parse(argv, { app: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, json: { type: 'boolean' } });
  const v = values as { app?: string; since?: string; until?: string; json?: boolean };
  const app = nonEmpty('--app', v.app);
  if (!app) throw new UsageError('ai needs --app <id> (see npm run apps -- list)');
  const day = (flag: string, value: string | undefined): string | undefined => {
    const given = nonEmpty(flag, value);
    if (given === undefined) return undefined;
    const at = Date.parse(`${given}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(given) || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== given) throw new UsageError(`${flag} must be a day, YYYY-MM-DD; got "${given}"`);
    return given;
  };
  const yesterday = new Date(today.getTime() - 86_400_000).toISOString().slice(0, 10);
  const until = day('--until', v.until) ?? yesterday;
  const since = day('--since', v.since) ?? new Date(Date.parse(`${until}T00:00:00Z`) - 27 * 86_400_000).toISOString().slice(0, 10);
  if (since > until) throw new UsageError(`--since ${since} is after --until ${until}`);
  if (until > yesterday) throw new UsageError(`--until ${until} has not ended yet (UTC); the last whole day is ${yesterday}`);
  if ((Date.parse(until) - Date.parse(since)) / 86_400_000 + 1 > MAX_AI_DAYS) throw new UsageError(`at most ${MAX_AI_DAYS} days a run; ${since} to ${until} is more`);
  return { kind: 'ai', app, since, until, json: v.json ?? false };
}

function parseSlack(argv: string[]): SlackCommand {
  const { values } = parse(argv, { app: { type: 'string' }, 'token-file': { type: 'string' }, 'base-url': { type: 'string' }, json: { type: 'boolean' } });
  const v = values as { app?: string; 'token-file'?: string; 'base-url'?: string; json?: boolean };
  const app = nonEmpty('--app', v.app);
  if (!app) throw new UsageError('slack needs --app <id> (see npm run apps -- list)');
  const tokenFile = nonEmpty('--token-file', v['token-file']);
  if (!tokenFile) throw new UsageError("slack needs --token-file <file>: a file holding the Slack app's bot token");
  const baseUrl = nonEmpty('--base-url', v['base-url']) ?? SLACK_API_URL;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw new UsageError(`--base-url must be an http(s) URL; got "${baseUrl}"`);
  return { kind: 'slack', app, tokenFile, baseUrl, json: v.json ?? false };
}

function parseJira(argv: string[]): JiraCommand {
  const { values } = parse(argv, {
    app: { type: 'string' },
    site: { type: 'string' },
    email: { type: 'string' },
    'token-file': { type: 'string' },
    since: { type: 'string' },
    'base-url': { type: 'string' },
    json: { type: 'boolean' },
  });
  const v = values as Record<string, string | boolean | undefined>;
  const required = (flag: string, hint: string): string => {
    const value = nonEmpty(`--${flag}`, v[flag] as string | undefined);
    if (value === undefined) throw new UsageError(`jira needs --${flag} ${hint}`);
    return value;
  };
  const app = required('app', '<id> (see npm run apps -- list)');
  const site = httpUrl('--site', required('site', '<https://x.atlassian.net>'));
  const email = required('email', '<the e-mail of the API token\'s account>');
  const tokenFile = required('token-file', '<a file holding the API token>');
  const baseUrl = v['base-url'] === undefined ? undefined : httpUrl('--base-url', nonEmpty('--base-url', v['base-url'] as string)!);
  let since: Date | undefined;
  if (v.since !== undefined) {
    since = new Date(nonEmpty('--since', v.since as string)!);
    if (Number.isNaN(since.getTime())) throw new UsageError(`--since must be a date, e.g. 2024-01-31 (got ${JSON.stringify(v.since)})`);
  }
  return { kind: 'jira', app, site, email, tokenFile, since, baseUrl, json: Boolean(v.json) };
}

function httpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be a URL, e.g. https://example.atlassian.net (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${flag} must be an http(s) URL`);
  return url.origin;
}

export async function main(argv: string[]): Promise<number> {
  const cmd = commandOrExit('import', USAGE, parseCommand, argv);
  if (typeof cmd === 'number') return cmd;
  if (cmd.kind === 'jira' || cmd.kind === 'linear') return importTracker(cmd);
  if (cmd.kind === 'slack') return linkSlackAccounts(cmd);
  if (cmd.kind === 'ai') return pullVendor(cmd);
  if (cmd.kind === 'history') {
    if (cmd.provider === 'slack') {
      const linked = await linkSlackAccountsWithStoredToken(cmd);
      if (linked !== 0) return linked;
    }
    return importHistory(cmd);
  }
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
  const say = (s: string) => cmd.json || process.stdout.write(s);
  try {
    const gitApp = await GitApp.findByPk(cmd.gitApp);
    if (!gitApp) throw new CloneError(`No git app ${cmd.gitApp} (see npm run gitapps -- list)`);
    const started = process.hrtime.bigint();
    const repository = await repositoryOfClone(cmd.clone, cmd.name);
    const writer = new GitActivityWriter(ChangeRunner.for(database.sequelize), providerCatalog());
    let read = 0;
    let added = 0;
    let statsFilled = 0;
    let repositoryId = '';
    for await (const commits of commitsOfClone(cmd.clone)) {
      const batch = await writer.importCommits(gitApp, repository, commits);
      read += commits.length;
      added += batch.added;
      statsFilled += batch.statsFilled;
      repositoryId = batch.repositoryId;
      say(`  ${read} commits read, ${added} added\n`);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (cmd.json) {
      const result = { repository_id: repositoryId, repository: repository.fullName, commits_read: read, commits_added: added, stats_filled: statsFilled, seconds: Number(seconds.toFixed(2)) };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else if (added === 0 && statsFilled === 0) {
      say(`Nothing to add: all ${read} commits of ${repository.fullName} (${repositoryId}) are already stored.\n`);
    } else {
      say(
        `Imported ${added} new commits of ${read} into ${repository.fullName} (${repositoryId}) in ${seconds.toFixed(1)} s` +
          (statsFilled ? `; line counts filled for ${statsFilled} commits first seen in pushes` : '') +
          '.\n',
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof CloneError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/**
 * A file holding a credential (one on the command line would sit in the shell's history and the process list); null,
 * said on stderr, when it cannot be read or holds something else.
 */
function credentialFile(flag: string, file: string, what: string): string | null {
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    process.stderr.write(`import: cannot read ${flag} ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
    return null;
  }
  if (secret && !/\s/.test(secret)) return secret;
  process.stderr.write(`import: ${flag} ${file} must hold ${what} and nothing else\n`);
  return null;
}

/**
 * A tracker's issues into its app, one change per page of the provider's search (docs/trackers.md#trackers); progress
 * on stderr, the summary on stdout. Issues already stored as the provider shows them are counted unchanged, and
 * their history is not added twice.
 */
async function importTracker(cmd: JiraCommand | LinearCommand): Promise<number> {
  const credential = cmd.kind === 'jira' ? credentialFile('--token-file', cmd.tokenFile, 'one API token') : credentialFile('--key-file', cmd.keyFile, 'one Linear API key');
  if (credential === null) return 1;
  const outbound = outboundPolicy(loadConfig());
  const given = cmd.kind === 'jira' ? (cmd.baseUrl === undefined ? { flag: '--site', url: cmd.site } : { flag: '--base-url', url: cmd.baseUrl }) : { flag: '--base-url', url: cmd.baseUrl };
  if (!(await callable(given.flag, given.url, outbound))) return 1;
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
  try {
    const { source, pointsField } = await trackerApp(cmd.app, cmd.kind === 'jira' ? jira : linear);
    const onWait = (seconds: number) => process.stderr.write(`  ${cmd.kind === 'jira' ? 'Jira' : 'Linear'} asks to wait ${seconds} s (rate limit); waiting\n`);
    const pages =
      cmd.kind === 'jira'
        ? jiraIssuePages({ baseUrl: cmd.baseUrl ?? cmd.site, outbound, email: cmd.email, token: credential, since: cmd.since, pointsField, onWait })
        : linearIssuePages({ apiKey: credential, baseUrl: cmd.baseUrl, outbound, since: cmd.since, onWait });
    const totals = await importPages(database, source, pages);
    const summary = { app_id: source.appId, ...(cmd.kind === 'jira' ? { site: cmd.site } : {}), ...totals };
    if (cmd.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      process.stdout.write(
        `Imported ${totals.issues} ${cmd.kind === 'jira' ? `issues of ${cmd.site}` : 'Linear issues'} into app ${source.appId} in ${totals.seconds.toFixed(1)} s: ` +
          `${totals.created} created, ${totals.updated} updated, ${totals.unchanged} already up to date.\n`,
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof JiraImportError || e instanceof LinearImportError || e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/**
 * A Slack workspace's members linked to the organization's members by e-mail, one change per page of `users.list`;
 * progress on stderr, the summary on stdout. Run again, it links only those not linked yet.
 */
async function linkSlackAccounts(cmd: SlackCommand): Promise<number> {
  const token = credentialFile('--token-file', cmd.tokenFile, 'one Slack bot token');
  if (token === null) return 1;
  const outbound = outboundPolicy(loadConfig());
  if (!(await callable('--base-url', cmd.baseUrl, outbound))) return 1;
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
  try {
    const app = await importingApp(cmd.app, slack);
    const started = process.hrtime.bigint();
    const totals = await linkWorkspace(database, app.id, token, cmd.baseUrl, outbound);
    const seconds = Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2));
    if (cmd.json) process.stdout.write(`${JSON.stringify({ app_id: app.id, ...totals, seconds })}\n`);
    else process.stdout.write(`Read ${totals.accounts} Slack accounts for app ${app.id} in ${seconds.toFixed(1)} s: ${linkedSummary(totals)}.\n`);
    return 0;
  } catch (e) {
    if (e instanceof SlackImportError || e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/**
 * Before a Slack app's history: its workspace's members linked by e-mail with the stored bot token, so their
 * conversations count (only messages between members do). Without a stored token the history import says what to
 * set; a token Slack refuses is said here, before any channel is read.
 */
async function linkSlackAccountsWithStoredToken(cmd: HistoryCommand): Promise<number> {
  const config = loadConfig();
  const outbound = outboundPolicy(config);
  const database = await openServerDatabase('import', config, cmd.json);
  if (!database) return 1;
  try {
    const credential = await new ConnectionCredentials(ChangeRunner.for(database.sequelize), new SecretBox(() => secretsKeyFor(config)), providerCatalog()).credentialOf(cmd.connection.id);
    if (credential?.kind !== 'token') return 0;
    const app = await importingApp(cmd.connection.id, slack);
    const totals = await linkWorkspace(database, app.id, credential.token, cmd.baseUrl ?? SLACK_API_URL, outbound);
    process.stderr.write(`Read ${totals.accounts} Slack accounts: ${linkedSummary(totals)}.\n`);
    return 0;
  } catch (e) {
    if (e instanceof SlackImportError || e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

type LinkTotals = { accounts: number; linked: number; unchanged: number; unmatched: number };

/** A Slack workspace's members linked to the organization's members by e-mail, one change per page of `users.list`; progress on stderr. */
async function linkWorkspace(database: ServerDatabase, appId: string, token: string, baseUrl: string, outbound: OutboundPolicy): Promise<LinkTotals> {
  // The key is read only when a secret is sealed or opened: linking accounts does neither.
  const writer = new AppWriter(ChangeRunner.for(database.sequelize), new SecretBox(() => secretsKeyFor(loadConfig())), providerCatalog());
  const totals = { accounts: 0, linked: 0, unchanged: 0, unmatched: 0 };
  const onWait = (seconds: number) => process.stderr.write(`  Slack asks to wait ${seconds} s (rate limit); waiting\n`);
  for await (const page of slackAccountPages({ token, baseUrl, outbound, onWait })) {
    const counts = page.accounts.length ? await writer.linkByEmail(appId, page.accounts) : { linked: 0, unchanged: 0, unmatched: 0 };
    totals.accounts += page.read;
    totals.linked += counts.linked;
    totals.unchanged += counts.unchanged;
    totals.unmatched += counts.unmatched + page.read - page.accounts.length;
    process.stderr.write(`  ${totals.accounts} accounts read, ${totals.linked} linked\n`);
  }
  return totals;
}

const linkedSummary = (totals: LinkTotals) =>
  `${totals.linked} linked to members, ${totals.unchanged} already linked, ${totals.unmatched} without a member's e-mail (bots, deleted accounts, guests of other domains)`;

/**
 * An AI vendor's app pulled over the days asked (docs/ai-vendors.md#how-a-pull-goes); the vendor's rate-limit waits said
 * on stderr, the summary on stdout.
 */
async function pullVendor(cmd: AiCommand): Promise<number> {
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
  try {
    const http = { ...defaultHttp(outboundPolicy(loadConfig())), onWait: (seconds: number, why: string) => process.stderr.write(`  ${why}; waiting ${seconds} s\n`) };
    const pulls = new VendorPulls(ChangeRunner.for(database.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(loadConfig())), http);
    const started = process.hrtime.bigint();
    const outcome = await pulls.pull(cmd.app, daysBetween(cmd.since, cmd.until));
    const seconds = Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2));
    if (cmd.json) process.stdout.write(`${JSON.stringify({ ...outcome, seconds })}\n`);
    else process.stdout.write(`Pulled app ${cmd.app} from ${cmd.since} to ${cmd.until} in ${seconds.toFixed(1)} s: ${pullSummary(outcome)}\n`);
    return outcome.credential_refused || outcome.destination_refused || outcome.refused.length ? 1 : 0;
  } catch (e) {
    if (e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/**
 * Whether the import may call the address given (https; plain http and private addresses only under the operator's
 * allowance: docs/operating.md#outgoing-calls), said on stderr when not, before anything is read. Each call checks
 * again, on the address it dials.
 */
async function callable(flag: string, url: string, outbound: OutboundPolicy): Promise<boolean> {
  try {
    await checkDestination(url, outbound);
    return true;
  } catch (e) {
    if (!(e instanceof RefusedDestination)) throw e;
    process.stderr.write(`import: ${flag} ${url} is refused: ${e.message}\n`);
    return false;
  }
}

async function importPages(database: ServerDatabase, source: TaskSource, pages: AsyncGenerator<TaskInput[]>) {
  const writer = new TaskWriter(ChangeRunner.for(database.sequelize));
  const started = process.hrtime.bigint();
  const totals = { pages: 0, issues: 0, created: 0, updated: 0, unchanged: 0 };
  for await (const inputs of pages) {
    const page = await writer.importPage(source, inputs);
    totals.pages += 1;
    totals.issues += inputs.length;
    totals.created += page.created;
    totals.updated += page.updated;
    totals.unchanged += page.unchanged;
    process.stderr.write(`  page ${totals.pages}: ${inputs.length} issues (${totals.issues} read, ${totals.created} created, ${totals.updated} updated)\n`);
  }
  return { ...totals, seconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)) };
}

if (require.main === module) runCli('import', main);
