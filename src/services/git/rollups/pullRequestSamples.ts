import { Transaction } from 'sequelize';
import { Repository } from '../../../../db/models';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { timeOf } from './leadTimes';
import { isAiPullRequest, MEASURES, Measure, MergedPullRequest } from '../../../../db/rollups/pullRequestMeasures';

/**
 * Each merged pull request's measures (pullRequestMeasures.ts), kept by the writers of what they are measured on:
 * the pull request writer (opened, merged, size, AI mark), the review writer (first review and approval, iteration)
 * and the AI writers (an AI-assisted commit): `pull_request_samples` holds each value with its band, and
 * `pull_request_days` the daily counts per repository and organization, measure, AI-assisted or not, and band,
 * and `pull_request_months` their monthly sums.
 * Recomputed from the pull request's row, so any order of deliveries ends in the same rows.
 */
type Stored = { pull_request_id: string; measure: number; merged_at: Date | string; ai: number | boolean; band: number; value: number | string; bot: number | string };
type Sample = { pull_request_id: string; measure: number; repository_id: string; organization_id: string; merged_at: Date; ai: boolean; band: number; value: number; bot: number };
type Row = Omit<MergedPullRequest, 'merged_at'> & { id: string; repository_id: string; organization_id: string; merged_at: Date | null; ai_assisted: boolean; has_ai_commit: boolean; bot: number };

const SAMPLE_COLUMNS = ['pull_request_id', 'measure', 'repository_id', 'organization_id', 'merged_at', 'ai', 'band', 'value', 'bot'] as const;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const nullableTime = (v: Date | string | null) => (v === null ? null : timeOf(v));

function samplesOf(p: Row): Sample[] {
  if (!p.merged_at) return [];
  const merged = { ...p, merged_at: p.merged_at };
  const ai = isAiPullRequest(p);
  return Object.values<Measure>(MEASURES).flatMap((m) => {
    const value = m.of(merged);
    return value === null ? [] : [{ pull_request_id: p.id, measure: m.id, repository_id: p.repository_id, organization_id: p.organization_id, merged_at: merged.merged_at, ai, band: m.bands.of(value), value, bot: p.bot }];
  });
}

const same = (s: Stored, n: Sample) => timeOf(s.merged_at).getTime() === n.merged_at.getTime() && Boolean(Number(s.ai)) === n.ai && Number(s.band) === n.band && Number(s.value) === n.value && Number(s.bot) === n.bot;

/** Recomputes the samples of these pull requests from their rows (their rows are locked until the change commits). */
export async function refreshPullRequestSamples(transaction: Transaction, pullRequestIds: string[]): Promise<void> {
  if (pullRequestIds.length === 0) return;
  const sql = new ChangeSql(transaction);
  const ids = [...new Set(pullRequestIds)].sort();
  type Read = Omit<Row, 'created_at' | 'merged_at' | 'first_review_at' | 'first_approval_at' | 'ready_for_review_at'> & Record<'merged_at' | 'first_review_at' | 'first_approval_at' | 'ready_for_review_at', Date | string | null> & { created_at: Date | string };
  const rows = await sql.select<Read>(
    `SELECT id, repository_id, organization_id, created_at, merged_at, first_review_at, first_approval_at, ready_for_review_at, additions, deletions, iterated, ai_assisted, has_ai_commit, bot
     FROM pull_requests WHERE id IN (:ids) ORDER BY id${sql.forUpdate}`,
    { ids },
  );
  const desired = rows.flatMap((r) =>
    samplesOf({
      ...r,
      created_at: timeOf(r.created_at),
      merged_at: nullableTime(r.merged_at),
      first_review_at: nullableTime(r.first_review_at),
      first_approval_at: nullableTime(r.first_approval_at),
      ready_for_review_at: nullableTime(r.ready_for_review_at),
      iterated: Boolean(Number(r.iterated)),
      bot: Number(r.bot),
      additions: r.additions === null ? null : Number(r.additions),
      deletions: r.deletions === null ? null : Number(r.deletions),
    }),
  );
  const stored = await sql.select<Stored & { repository_id: string; organization_id: string }>(
    `SELECT pull_request_id, measure, repository_id, organization_id, merged_at, ai, band, value, bot FROM pull_request_samples WHERE pull_request_id IN (:ids)${sql.forUpdate}`,
    { ids },
  );
  const key = (s: { pull_request_id: string; measure: number }) => `${s.pull_request_id}\u0000${Number(s.measure)}`;
  const wanted = new Map(desired.map((s) => [key(s), s]));
  const had = new Map(stored.map((s) => [key(s), s]));
  const stale = stored.filter((s) => !wanted.has(key(s)) || !same(s, wanted.get(key(s))!));
  const fresh = desired.filter((s) => !had.has(key(s)) || !same(had.get(key(s))!, s));
  for (const s of stale) await sql.run('DELETE FROM pull_request_samples WHERE pull_request_id = :id AND measure = :measure', { id: s.pull_request_id, measure: Number(s.measure) });
  if (fresh.length) await sql.insert('pull_request_samples', SAMPLE_COLUMNS, fresh);
  await moveDays(sql, [
    ...stale.map((s) => ({ repository_id: s.repository_id, organization_id: s.organization_id, day: dayOf(timeOf(s.merged_at)), measure: Number(s.measure), ai: Boolean(Number(s.ai)), band: Number(s.band), bot: Number(s.bot), by: -1 })),
    ...fresh.map((s) => ({ ...s, day: dayOf(s.merged_at), by: 1 })),
  ]);
}

type Move = { repository_id: string; organization_id: string; day: string; measure: number; ai: boolean; band: number; bot: number; by: number };

/**
 * The daily and monthly counts moved by what left and what came, per repository and organization, each table in
 * key order (one lock order).
 */
async function moveDays(sql: ChangeSql, moves: Move[]): Promise<void> {
  const periods = [
    { table: 'pull_request_days', column: 'day', of: (day: string) => day },
    { table: 'pull_request_months', column: 'month', of: (day: string) => day.slice(0, 7) },
  ];
  for (const period of periods) {
    const rows = new Map<string, { scope_id: string; at: string; measure: number; ai: boolean; band: number; bot: number; pull_requests: number }>();
    for (const move of moves) {
      for (const scopeId of [move.repository_id, move.organization_id]) {
        const at = period.of(move.day);
        const key = [scopeId, at, String(move.measure).padStart(3, '0'), move.ai ? 1 : 0, String(move.band).padStart(3, '0'), move.bot].join('\u0000');
        const row = rows.get(key) ?? { scope_id: scopeId, at, measure: move.measure, ai: move.ai, band: move.band, bot: move.bot, pull_requests: 0 };
        row.pull_requests += move.by;
        rows.set(key, row);
      }
    }
    const moved = [...rows.entries()].filter(([, r]) => r.pull_requests !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const values = moved.map(([, { at, ...r }]) => ({ ...r, [period.column]: at }));
    if (values.length) await sql.addTo(period.table, ['scope_id', period.column, 'measure', 'ai', 'band', 'bot'], ['pull_requests'], values);
  }
}

/** Before a repository's pull requests are deleted: their samples leave the organization's days, and its own rows go. */
export async function removePullRequestSamples(transaction: Transaction, repository: Pick<Repository, 'id' | 'organization_id'>): Promise<void> {
  const sql = new ChangeSql(transaction);
  const stale = await sql.select<Stored>('SELECT merged_at, measure, ai, band, bot FROM pull_request_samples WHERE repository_id = :id', { id: repository.id });
  await sql.run('DELETE FROM pull_request_samples WHERE repository_id = :id', { id: repository.id });
  await moveDays(
    sql,
    stale.map((s) => ({ repository_id: repository.id, organization_id: repository.organization_id, day: dayOf(timeOf(s.merged_at)), measure: Number(s.measure), ai: Boolean(Number(s.ai)), band: Number(s.band), bot: Number(s.bot), by: -1 })),
  );
  await sql.run('DELETE FROM pull_request_days WHERE scope_id = :id', { id: repository.id });
  await sql.run('DELETE FROM pull_request_months WHERE scope_id = :id', { id: repository.id });
}
