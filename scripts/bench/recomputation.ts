/**
 * The recomputation row of `npm run bench` (issue 60, docs/performance.md#the-recomputation-row): a change of the bot
 * accounts of the large organization, recomputed over its whole history (docs/metrics.md#recomputing) by
 * `npm run metrics-settings -- set --bots … --wait` as an operator runs it (the measured build's CLI, a process of its
 * own), then put back the same way. Each run's wall time (start-up included) and its process's peak RSS (sampled
 * every 100 ms) are the row's.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { run, sampleRss, serviceNodeFlags } from './processes';
import { jsonLine } from './metricSettings';

/** The row's name in the report and for --filter. */
export const RECOMPUTATION_ROW_PATH = 'npm run metrics-settings -- set --bots … --wait (recomputation)';

/** Matched by no login the demo data stores (it stores none): the recomputation still reads every pull request. */
export const NO_ONE = 'bench-recomputation-no-one';

export interface RecomputationRun {
  /** What `--bots` was given. */
  bots: string;
  seconds: number;
  rssPeakMb: number;
}

export interface RecomputationRow {
  path: string;
  /** The organization's pull requests: what each recomputation reads and rewrites the bits of. */
  pullRequests: number;
  set: RecomputationRun;
  putBack: RecomputationRun;
}

export interface RecomputationContext {
  url: string;
  db: Connection;
  organizationId: string;
  /** The measured build's `dist/scripts/metricsSettings.js`. */
  settingsMain: string;
  log: (s: string) => void;
  /** Puts the settings back on a failure or Ctrl-C, as the run's other undos are. */
  atCleanup: (undo: () => Promise<unknown>) => void;
  notes: string[];
  differences: string[];
}

/**
 * A glob that moves some pull requests into the bots: the first characters of a stored author's login, so that the
 * rewrite of their bits is measured too; with no login stored, one that matches none.
 */
export function botGlobFor(login: string | undefined): string {
  const prefix = login && /^[a-z0-9._-]{1,3}/i.exec(login)?.[0];
  return prefix ? `${prefix.toLowerCase()}*` : NO_ONE;
}

interface SettingsJson {
  version: number;
  bot_accounts: string[];
  recomputation: { version: number; done: number; total: number } | null;
}

export async function measureRecomputation(c: RecomputationContext): Promise<RecomputationRow> {
  const cli = (args: string[], onSpawn?: (pid: number) => void) =>
    run(process.execPath, [...serviceNodeFlags(), c.settingsMain, ...args, '--org', c.organizationId, '--json'], { env: { DATABASE_URL: c.url, LOG_LEVEL: 'warn' }, capture: true, onSpawn });
  const before = jsonLine<SettingsJson>(await cli(['show']), 'npm run metrics-settings');
  if (before.recomputation) {
    throw new Error(`organization ${c.organizationId} is recomputing version ${before.recomputation.version} already (${before.recomputation.done} of ${before.recomputation.total}); run the row once it is done`);
  }
  const comma = before.bot_accounts.find((entry) => entry.includes(','));
  if (comma !== undefined) throw new Error(`the organization's bot account "${comma}" holds a comma, which npm run metrics-settings could not put back whole; not changing its settings`);
  const [rows] = await c.db.query<(RowDataPacket & { n: number | string })[]>('SELECT COUNT(*) AS n FROM pull_requests WHERE organization_id = ?', [c.organizationId]);
  const pullRequests = Number(rows[0].n);
  const [logins] = await c.db.query<(RowDataPacket & { author_login: string })[]>(
    'SELECT author_login FROM pull_requests WHERE organization_id = ? AND author_login IS NOT NULL LIMIT 1',
    [c.organizationId],
  );
  const glob = botGlobFor(logins[0]?.author_login);

  let version = before.version;
  const timed = async (bots: string): Promise<RecomputationRun> => {
    const previous = version;
    let rss: ReturnType<typeof sampleRss> | undefined;
    const started = process.hrtime.bigint();
    const out = await cli(['set', '--bots', bots, '--wait'], (pid) => (rss = sampleRss(pid, 100)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    rss?.stop();
    const view = jsonLine<SettingsJson>(out, 'npm run metrics-settings');
    version = view.version;
    // --wait returns once the new version is in force: no recomputation left, a version past the one before.
    if (view.recomputation || view.version <= previous) c.differences.push(`\`${RECOMPUTATION_ROW_PATH}\`: \`--bots ${bots} --wait\` ended at version ${view.version} (was ${previous}) with recomputation ${JSON.stringify(view.recomputation)}`);
    c.log(`recomputation: --bots ${bots} recomputed ${pullRequests} pull requests in ${seconds.toFixed(1)} s (peak RSS ${(rss?.peak() ?? 0).toFixed(0)} MB), version ${view.version}`);
    return { bots, seconds, rssPeakMb: rss?.peak() ?? 0 };
  };
  let putBack: Promise<RecomputationRun> | undefined;
  // Once, whether after the row or by the cleanup after a failure.
  const restore = () => (putBack ??= timed(before.bot_accounts.length ? before.bot_accounts.join(',') : 'none'));
  c.atCleanup(restore);

  const set = await timed(glob);
  const back = await restore();
  c.notes.push(
    `\`${RECOMPUTATION_ROW_PATH}\`: \`--bots ${glob}\` ${glob === NO_ONE ? '(the data stores no pull request author login: a login that matches none)' : '(the first characters of a stored author login)'}, ` +
      `then put back; each run recomputes all ${pullRequests.toLocaleString('en-US')} pull requests of the organization, with the API stopped so that its own background recomputation does not take turns with the CLI's.`,
  );
  return { path: RECOMPUTATION_ROW_PATH, pullRequests, set, putBack: back };
}
