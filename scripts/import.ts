/**
 * npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]
 *
 * Backfills a repository's history (docs/ingest.md) from `git log` of a local clone: commits with author, message,
 * line counts and dates, in batches of 500, each one change on the write path (docs/architecture.md#writers). Commits already stored are
 * skipped, so a second run adds nothing; commits a push stored without line counts get them.
 * Exit codes: 0 done, 1 bad input (unknown git app, not a clone) or failure, 2 usage error.
 */
import { GitApp } from '../db/models';
import { loadConfig } from '../src/config';
import { ChangeRunner } from '../src/persistence/changes/change';
import { GitActivityWriter } from '../src/services/git/writer';
import { CloneError, commitsOfClone, repositoryOfClone } from '../src/importer/gitLog';
import { commandOrExit, nonEmpty, openServerDatabase, parse, runCli, UsageError } from './cli';

const USAGE = `Usage:
  npm run import -- git --git-app <id> [--name <repository name>] <path-to-clone> [--json]

git   imports the commits reachable from the clone's HEAD into a repository of the git app.
        --name  the repository's full name (owner/repo); default: the path of the clone's
                'origin' remote, else the directory's name. Use the name the provider shows, so
                the import and the provider's webhooks fill the same repository.
        --json  print {"repository_id","repository","commits_read","commits_added",
                "stats_filled","seconds"} on one line

Run it again at any time: commits already stored are skipped.`;

export type Command = { kind: 'help' } | { kind: 'git'; gitApp: string; name?: string; clone: string; json: boolean };

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a source is required: git');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (command !== 'git') throw new UsageError(`unknown source "${command}"; this importer reads git`);
  const { values, positionals } = parse(rest, { 'git-app': { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } }, true);
  const v = values as { 'git-app'?: string; name?: string; json?: boolean };
  const gitApp = nonEmpty('--git-app', v['git-app']);
  if (!gitApp) throw new UsageError('git needs --git-app <id> (see npm run gitapps -- list)');
  if (positionals.length !== 1) throw new UsageError('git needs exactly one path: the clone to read');
  const name = nonEmpty('--name', v.name);
  if (name !== undefined && name.length > 200) throw new UsageError('--name has at most 200 characters');
  return { kind: 'git', gitApp, name, clone: positionals[0], json: v.json ?? false };
}

export async function main(argv: string[]): Promise<number> {
  const cmd = commandOrExit('import', USAGE, parseCommand, argv);
  if (typeof cmd === 'number') return cmd;
  const database = await openServerDatabase('import', loadConfig(), cmd.json);
  if (!database) return 1;
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

if (require.main === module) runCli('import', main);
