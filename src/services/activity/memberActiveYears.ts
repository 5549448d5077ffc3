import type { Transaction } from 'sequelize';
import { monthColumn } from '../../../db/rollups/aiActiveYears';
import { daysColumn, DaysOf, MEMBER_ACTIVE_YEARS_COLUMNS, MEMBER_ACTIVE_YEARS_KEYS, memberActiveYearsSql } from '../../../db/rollups/memberActiveYears';
import { Change, perChange } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { chunks } from '../people/memberEmails';
import { ALL_DAYS, dayBit } from './dayBits';

/**
 * Keeps member_active_years (db/rollups/memberActiveYears.ts): the days each member worked and used an AI tool, a
 * row per year with a column a month, which the AI adoption tiers read. Writers add bits in the change that stores
 * what made them (a commit, a pull request opened, an act on one, a day of AI use); only adding, an OR is exact.
 * When rows leave (a repository erased, a vendor's day made again), the members' years are counted again from what
 * stays.
 */
type MonthBits = { organizationId: string; userId: string; month: string; bits: number };
type YearRow = { organization_id: string; user_id: string; year: number } & Record<string, string | number>;

/**
 * One row per organization, member and year, each month's bits ORed into its column of `kind`, in key order
 * (concurrent changes lock rows in one order). Only the months with bits are named: a change's days are mostly of
 * one month, and a column ORed with 0 would be written for nothing.
 */
async function addBits(sql: ChangeSql, kind: DaysOf, months: MonthBits[]): Promise<void> {
  const years = new Map<string, YearRow>();
  const touched = new Set<string>();
  for (const { organizationId, userId, month, bits } of months) {
    const year = Number(month.slice(0, 4));
    const key = [organizationId, userId, year].join('\u0000');
    const row = years.get(key) ?? { organization_id: organizationId, user_id: userId, year };
    const column = daysColumn(kind, monthColumn(month));
    row[column] = Number(row[column] ?? 0) | bits;
    touched.add(column);
    years.set(key, row);
  }
  if (!years.size) return;
  const columns = [...touched].sort();
  const rows = [...years].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => ({ ...Object.fromEntries(columns.map((c) => [c, 0])), ...row }));
  await sql.addTo('member_active_years', MEMBER_ACTIVE_YEARS_KEYS, columns, rows, '|');
}

const pendingWorkOf = perChange((): { months: MonthBits[]; scheduled: boolean } => ({ months: [], scheduled: false }));

/**
 * The days members worked (authored a commit, opened a pull request, acted on one): `at` a UTC timestamp or day.
 * ORed in once the change's steps are done, however many of them found some (a page of history brings hundreds of
 * reviews): nothing in a change reads these rows, and an OR gives the same bits in any order. A day found by a last
 * step is ORed in by a last step of its own.
 */
export function addWorkDays(change: Change, organizationId: string, work: { userId: string | null; at: Date | string }[]): void {
  const pending = pendingWorkOf(change);
  for (const { userId, at } of work) {
    if (!userId) continue;
    const day = typeof at === 'string' ? at.slice(0, 10) : at.toISOString().slice(0, 10);
    pending.months.push({ organizationId, userId, month: day.slice(0, 7), bits: dayBit(day) });
  }
  if (pending.scheduled || pending.months.length === 0) return;
  pending.scheduled = true;
  change.beforeCommit(async () => {
    const months = pending.months;
    Object.assign(pending, { months: [], scheduled: false });
    await addBits(new ChangeSql(change.transaction), 'work', months);
  });
}

/** Days of AI use, as any-tool month bits (`user_key` the member, `days` the month's bits), as ai_active_years gets them. */
export function addAiDays(sql: ChangeSql, rows: { organization_id: string; user_key: string; month: string; days: number }[]): Promise<void> {
  const members = rows.filter((r) => r.user_key !== '').map((r) => ({ organizationId: r.organization_id, userId: r.user_key, month: r.month, bits: r.days }));
  return addBits(sql, 'ai', members);
}

/** Takes a day's AI bit off these members' month, before the day's rows that stay set it again (aiUsage/activeDays.ts). */
export async function clearAiDay(sql: ChangeSql, organizationId: string, day: string, members: string[]): Promise<void> {
  const column = daysColumn('ai', monthColumn(day.slice(0, 7)));
  await sql.run(`UPDATE member_active_years SET ${column} = ${column} & :keep WHERE organization_id = :organizationId AND year = :year AND user_id IN (:members)`, {
    organizationId,
    year: Number(day.slice(0, 4)),
    members,
    keep: ALL_DAYS - dayBit(day),
  });
}

/**
 * After rows left: these members' years of the organization, counted again from what is stored. The days the change
 * found for them and has not ORed in yet are among what is stored, or left with the rows: they are dropped.
 */
export async function recountMemberActiveYears(change: Change, organizationId: string, userIds: string[]): Promise<void> {
  const recounted = new Set(userIds);
  const pending = pendingWorkOf(change);
  pending.months = pending.months.filter((m) => m.organizationId !== organizationId || !recounted.has(m.userId));
  const sql = new ChangeSql(change.transaction);
  for (const users of chunks([...recounted].sort())) {
    const replacements = { organization_id: organizationId, users };
    await sql.run('DELETE FROM member_active_years WHERE organization_id = :organization_id AND user_id IN (:users)', replacements);
    await sql.run(`INSERT INTO member_active_years ${MEMBER_ACTIVE_YEARS_COLUMNS} ${memberActiveYearsSql(sql.mysql, true)}`, replacements);
  }
}

/** The members who opened a pull request of a repository or acted on one, before its rows leave (its authors are known apart). */
export async function membersActiveIn(transaction: Transaction, repositoryId: string): Promise<string[]> {
  const rows = await new ChangeSql(transaction).select<{ user_id: string }>(
    `SELECT p.author_id AS user_id FROM pull_requests p WHERE p.repository_id = :repositoryId AND p.author_id IS NOT NULL
      UNION SELECT pa.actor_id FROM pull_request_activities pa WHERE pa.repository_id = :repositoryId AND pa.actor_id IS NOT NULL`,
    { repositoryId },
  );
  return rows.map((r) => r.user_id);
}
