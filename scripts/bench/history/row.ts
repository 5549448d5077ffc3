/**
 * One history row of `npm run bench` (docs/performance.md#the-history-import-rows): a year of a busy organization at
 * one provider, served by a fake of its API (fakeServer.ts, a process of its own), read and stored twice, each time
 * into an organization made for it and deleted after: by the floor (floor.ts), then by `npm run import -- <provider>`
 * as an operator runs it (the CLI of the build measured, a process of its own, under `npm run import`'s heap flags,
 * with the credential stored by set-credential and the fake as `--base-url`). Each run's wall time (start-up
 * included) and its process's peak RSS (sampled every 100 ms) are the row's; the rows each stored are counted per
 * table and compared.
 */
import path from 'node:path';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { freePort, run, sampleRss, serviceNodeFlags, startServer, stopServer, waitHealthy } from '../processes';
import { BenchConnection, benchMember, BenchWriters, MemberRow, pickMembers } from './organization';
import { HistoryBenchProvider, historyRowPath } from './providers';
import type { Sizes, World } from './world';

const DAY_MS = 86_400_000;
/** A busy organization's engineers: the authors, reviewers and speakers of every row. */
const MEMBERS = 300;

/** The tables a history import stores items in, and what else it writes for them that the floor writes too. */
const ITEM_TABLES = ['pull_requests', 'pull_request_activities', 'deployments', 'incidents', 'tasks'] as const;
const OTHER_TABLES = ['repositories', 'interactions', 'outbox_events', 'user_apps'] as const;

export interface HistoryRun {
  seconds: number;
  rssPeakMb: number;
  /** Rows stored in the item tables (and Slack's interactions, its items). */
  items: number;
  stored: Record<string, number>;
}

export interface HistoryRow {
  path: string;
  provider: string;
  sizes: Sizes;
  floor: HistoryRun;
  importer: HistoryRun;
  /** Provider items the importer read (its summary's `read`). */
  read: number;
}

export interface HistoryRowContext {
  url: string;
  db: Connection;
  /** The large organization whose people the row's organization borrows. */
  organizationId: string;
  quick: boolean;
  secretsKey: Buffer;
  /** The measured build's `dist/scripts/import.js`. */
  importMain: string;
  /** This checkout's root (its dist/ holds the fake and the floor). */
  root: string;
  log: (s: string) => void;
  notes: string[];
  differences: string[];
}

async function stored(db: Connection, organizationId: string, appId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [...ITEM_TABLES, ...OTHER_TABLES]) {
    const [where, key] = table === 'user_apps' ? ['app_id = ?', appId] : ['organization_id = ?', organizationId];
    const [rows] = await db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, [key]);
    counts[table] = Number(rows[0].n);
  }
  return counts;
}

/** The items a run stored: the item tables' rows, and a chat's conversations (its interactions). */
const itemsOf = (provider: HistoryBenchProvider, counts: Record<string, number>) =>
  ITEM_TABLES.reduce((n, t) => n + counts[t], 0) + (provider.id === 'slack' ? counts.interactions : 0);

export async function measureHistoryRow(c: HistoryRowContext, provider: HistoryBenchProvider): Promise<HistoryRow> {
  const rowPath = historyRowPath(provider.id);
  const until = Date.now();
  const members: MemberRow[] = await pickMembers(c.db, c.organizationId, MEMBERS);
  const world: World = { since: until - 365 * DAY_MS, until, sizes: provider.sizes(c.quick), members: members.map(benchMember), token: provider.token };
  const fake = startServer(`fake ${provider.id}`, process.execPath, [path.join(c.root, 'dist/scripts/bench/history/fakeServer.js')], await freePort(), {
    HISTORY_PROVIDER: provider.id,
    HISTORY_WORLD: JSON.stringify(world),
  });
  const writers = BenchWriters.open(c.url, c.secretsKey);
  try {
    await waitHealthy(fake);
    const root = provider.root(fake.url);
    const window = ['--since', new Date(world.since).toISOString(), '--until', new Date(world.until).toISOString()];
    const once = async (name: string, start: (connection: BenchConnection) => { args: string[]; env: Record<string, string> }): Promise<HistoryRun & { out: string }> => {
      const connection = await writers.connect(c.db, c.organizationId, provider, members, world.members, provider.token);
      try {
        const { args, env } = start(connection);
        let rss: ReturnType<typeof sampleRss> | undefined;
        const started = process.hrtime.bigint();
        const out = await run(process.execPath, args, { env: { DATABASE_URL: c.url, LOG_LEVEL: 'warn', ...env }, capture: true, onSpawn: (pid) => (rss = sampleRss(pid, 100)) });
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        rss?.stop();
        const counts = await stored(c.db, connection.organizationId, connection.id);
        c.log(`history ${provider.id}: ${name} stored ${itemsOf(provider, counts)} items in ${seconds.toFixed(1)} s (peak RSS ${(rss?.peak() ?? 0).toFixed(0)} MB)`);
        return { seconds, rssPeakMb: rss?.peak() ?? 0, items: itemsOf(provider, counts), stored: counts, out };
      } finally {
        await writers.remove(c.db, connection.organizationId);
      }
    };
    const floor = await once('floor', (connection) => ({
      args: [path.join(c.root, 'dist/scripts/bench/history/floor.js')],
      env: { HISTORY_PROVIDER: provider.id, HISTORY_CONNECTION: connection.id, HISTORY_BASE_URL: root, HISTORY_TOKEN: provider.token, HISTORY_SINCE: new Date(world.since).toISOString(), HISTORY_UNTIL: new Date(world.until).toISOString() },
    }));
    const importer = await once('importer', (connection) => ({
      args: [...serviceNodeFlags(), c.importMain, provider.id, connection.type === 'git_app' ? '--git-app' : '--app', connection.id, ...window, '--base-url', root, '--json'],
      env: { SECRETS_KEY: c.secretsKey.toString('hex'), WEBHOOK_ALLOW_PRIVATE: 'true' },
    }));
    const lastJson = (out: string) => JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}') as Record<string, unknown>;
    const summary = lastJson(importer.out) as { outcome?: string; read?: number; message?: string };
    const floorSummary = lastJson(floor.out) as { pages?: number; writing_seconds?: number };
    c.notes.push(
      `\`${rowPath}\`: ${summary.read ?? '?'} provider items read and stored in ${floorSummary.pages ?? '?'} batches (historyBatches.ts); the floor spent ${(floorSummary.writing_seconds ?? 0).toFixed(1)} s ` +
        `of its ${floor.seconds.toFixed(1)} s writing, the rest reading the fake through the importer's own client, which the importer's run spends too.`,
    );
    if (summary.outcome !== 'complete') c.differences.push(`\`${rowPath}\`: the import ended ${summary.outcome ?? 'without a summary'}: ${summary.message ?? importer.out.slice(0, 300)}`);
    const differing = Object.keys(floor.stored).filter((t) => floor.stored[t] !== importer.stored[t]);
    if (differing.length) c.differences.push(`\`${rowPath}\`: rows stored by the importer / the floor: ${differing.map((t) => `${t} ${importer.stored[t]} / ${floor.stored[t]}`).join(', ')}`);
    return { path: rowPath, provider: provider.id, sizes: world.sizes, floor, importer, read: summary.read ?? 0 };
  } finally {
    await writers.close();
    await stopServer(fake);
  }
}
