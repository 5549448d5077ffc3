/**
 * npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]
 * npm run import -- linear --app <id> --key-file <file> [--since <date>] [--base-url <url>] [--json]
 *
 * Backfills a repository's history (docs/ingest.md) from `git log` of a local clone: commits with author, message,
 * line counts and dates, in batches of 500, each one change on the write path (docs/architecture.md#writers). Commits already stored are
 * skipped, so a second run adds nothing; commits a push stored without line counts get them.
 * Exit codes: 0 done, 1 bad input (unknown git app, not a clone) or failure, 2 usage error.
 */
import fs from 'node:fs';
import { GitApp } from '../db/models';
import { loadConfig } from '../src/config';
import { ChangeRunner } from '../src/persistence/changes/change';
import { GitActivityWriter } from '../src/services/git/writer';
import { CloneError, commitsOfClone, repositoryOfClone } from '../src/importer/gitLog';
import { DomainError } from '../src/errors';
import { LINEAR_API_URL, LinearImportError, linearIssuePages } from '../src/importer/linear';
import { appTaskSource } from '../src/services/apps/taskSource';
import { TaskWriter } from '../src/services/work/taskWriter';
import { commandOrExit, nonEmpty, openServerDatabase, parse, runCli, ServerDatabase, UsageError } from './cli';

const USAGE = `Usage:
  npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]
  npm run import -- linear --app <id> --key-file <file> [--since <date>] [--base-url <url>] [--json]

git   imports the commits reachable from the clone's HEAD into a repository of the git app.
        --name  the repository's full name (owner/repo); default: the path of the clone's
                'origin' remote, else the directory's name. Use the name the provider shows, so
                the import and the provider's webhooks fill the same repository.
        --json  print {"repository_id","repository","commits_read","commits_added",
                "stats_filled","seconds"} on one line

linear  imports a Linear app's issues with their state history (GraphQL API), 50 a page.
        --key-file  a file holding a Linear API key (Settings → Security & access → Personal
                    API keys) or an OAuth access token; never given on the command line
        --since     only issues updated since this date (YYYY-MM-DD or an ISO 8601 time)
        --base-url  the API's root (default ${LINEAR_API_URL})
        --json      print {"app_id","issues_read","created","updated","unchanged","pages",
                    "seconds"} on one line

Run either again at any time: what is already stored is not stored twice.`;

export type Command =
  | { kind: 'help' }
  | { kind: 'git'; gitApp: string; name?: string; clone: string; json: boolean }
  | { kind: 'linear'; app: string; keyFile: string; since?: Date; baseUrl: string; json: boolean };

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a source is required: git or linear');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (command === 'linear') return parseLinear(rest);
  if (command !== 'git') throw new UsageError(`unknown source "${command}"; this importer reads git or linear`);
  const { values, positionals } = parse(rest, { 'git-app': { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } }, true);
  const v = values as { 'git-app'?: string; name?: string; json?: boolean };
  const gitApp = nonEmpty('--git-app', v['git-app']);
  if (!gitApp) throw new UsageError('git needs --git-app <id> (see npm run gitapps -- list)');
  if (positionals.length !== 1) throw new UsageError('git needs exactly one path: the clone to read');
  const name = nonEmpty('--name', v.name);
  if (name !== undefined && name.length > 200) throw new UsageError('--name has at most 200 characters');
  return { kind: 'git', gitApp, name, clone: positionals[0], json: v.json ?? false };
}

function parseLinear(argv: string[]): Command {
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

export async function main(argv: string[]): Promise<number> {
  const cmd = commandOrExit('import', USAGE, parseCommand, argv);
  if (typeof cmd === 'number') return cmd;
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
  if (cmd.kind === 'linear') return importLinear(cmd, database);
  const say = (s: string) => cmd.json || process.stdout.write(s);
  try {
    const gitApp = await GitApp.findByPk(cmd.gitApp);
    if (!gitApp) throw new CloneError(`No git app ${cmd.gitApp} (see npm run gitapps -- list)`);
    const started = process.hrtime.bigint();
    const repository = await repositoryOfClone(cmd.clone, cmd.name);
    const writer = new GitActivityWriter(ChangeRunner.for(database.sequelize));
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
 * A Linear app's issues, one change per page of 50 (docs/ingest.md#linear); progress on stderr, the summary on
 * stdout. Issues already stored as Linear shows them are counted unchanged, and their history is not added twice.
 */
async function importLinear(cmd: Extract<Command, { kind: 'linear' }>, database: ServerDatabase): Promise<number> {
  try {
    const apiKey = readKey(cmd.keyFile);
    const source = await appTaskSource(cmd.app, 'linear');
    const writer = new TaskWriter(ChangeRunner.for(database.sequelize));
    const started = process.hrtime.bigint();
    const totals = { issues_read: 0, created: 0, updated: 0, unchanged: 0, pages: 0 };
    const onWait = (seconds: number) => process.stderr.write(`  Linear's rate limit: waiting ${seconds} s\n`);
    for await (const inputs of linearIssuePages({ apiKey, baseUrl: cmd.baseUrl, since: cmd.since, onWait })) {
      const page = await writer.importPage(source, inputs);
      totals.pages += 1;
      totals.issues_read += inputs.length;
      totals.created += page.created;
      totals.updated += page.updated;
      totals.unchanged += page.unchanged;
      process.stderr.write(`  page ${totals.pages}: ${totals.issues_read} issues read, ${totals.created} created, ${totals.updated} updated\n`);
    }
    const seconds = Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2));
    if (cmd.json) process.stdout.write(`${JSON.stringify({ app_id: source.appId, ...totals, seconds })}\n`);
    else {
      process.stdout.write(
        `Imported ${totals.issues_read} Linear issues into ${source.appId}: ${totals.created} created, ${totals.updated} updated, ${totals.unchanged} unchanged in ${seconds.toFixed(1)} s.\n`,
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof LinearImportError || e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/** The API key from its file (a key on the command line would sit in the shell's history and the process list). */
function readKey(file: string): string {
  let key: string;
  try {
    key = fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new LinearImportError(`Cannot read --key-file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!key || /\s/.test(key)) throw new LinearImportError(`--key-file ${file} must hold one Linear API key and nothing else`);
  return key;
}

if (require.main === module) runCli('import', main);
