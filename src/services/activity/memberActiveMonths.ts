import type { Transaction } from 'sequelize';
import { MEMBER_ACTIVE_MONTHS_COLUMNS, memberActiveMonthsSql } from '../../../db/rollups/memberActiveMonths';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { chunks } from '../people/memberEmails';
import { ALL_DAYS, dayBit } from './dayBits';

/**
 * Keeps member_active_months (db/rollups/memberActiveMonths.ts): the days each member worked and used an AI tool, a
 * row per month, which the AI adoption tiers read. Writers add bits in the change that stores what made them (a
 * commit, a pull request opened, an act on one, a day of AI use); only adding, an OR is exact. When rows leave (a
 * repository erased, a vendor's day made again), the members' months are counted again from what stays.
 */
const KEYS = ['organization_id', 'user_id', 'month'] as const;

type Bits = 'work_days' | 'ai_days';
type MonthBits = { organization_id: string; user_id: string; month: string; bits: number };

/** One row per member and month, the bits of its days ORed, in key order (concurrent changes lock rows in one order). */
function byMonth(organizationId: string, days: { userId: string; day: string }[]): MonthBits[] {
  const rows = new Map<string, MonthBits>();
  for (const { userId, day } of days) {
    const month = day.slice(0, 7);
    const key = `${userId}\u0000${month}`;
    const row = rows.get(key) ?? { organization_id: organizationId, user_id: userId, month, bits: 0 };
    row.bits |= dayBit(day);
    rows.set(key, row);
  }
  return [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}

async function addBits(sql: ChangeSql, column: Bits, rows: MonthBits[]): Promise<void> {
  if (rows.length) await sql.addTo('member_active_months', KEYS, [column], rows.map(({ bits, ...key }) => ({ ...key, [column]: bits })), '|');
}

/** The days members worked (authored a commit, opened a pull request, acted on one): `at` a UTC timestamp or day. */
export function addWorkDays(sql: ChangeSql, organizationId: string, work: { userId: string | null; at: Date | string }[]): Promise<void> {
  const days = work.flatMap(({ userId, at }) => (userId ? [{ userId, day: typeof at === 'string' ? at.slice(0, 10) : at.toISOString().slice(0, 10) }] : []));
  return addBits(sql, 'work_days', byMonth(organizationId, days));
}

/** Days of AI use, as any-tool month bits (`user_key` the member, `days` the month's bits), as ai_active_years gets them. */
export function addAiDays(sql: ChangeSql, rows: { organization_id: string; user_key: string; month: string; days: number }[]): Promise<void> {
  const members = rows.filter((r) => r.user_key !== '').map((r) => ({ organization_id: r.organization_id, user_id: r.user_key, month: r.month, bits: r.days }));
  return addBits(sql, 'ai_days', members.sort((a, b) => (`${a.user_id}\u0000${a.month}` < `${b.user_id}\u0000${b.month}` ? -1 : 1)));
}

/** Takes a day's AI bit off these members' month, before the day's rows that stay set it again (aiUsage/activeDays.ts). */
export async function clearAiDay(sql: ChangeSql, organizationId: string, day: string, members: string[]): Promise<void> {
  const keep = ALL_DAYS - dayBit(day);
  await sql.run('UPDATE member_active_months SET ai_days = ai_days & :keep WHERE organization_id = :organizationId AND month = :month AND user_id IN (:members)', {
    organizationId,
    month: day.slice(0, 7),
    members,
    keep,
  });
}

/** After rows left: these members' months of the organization, counted again from what is stored. */
export async function recountMemberActiveMonths(transaction: Transaction, organizationId: string, userIds: string[]): Promise<void> {
  const sql = new ChangeSql(transaction);
  for (const users of chunks([...new Set(userIds)].sort())) {
    const replacements = { organization_id: organizationId, users };
    await sql.run('DELETE FROM member_active_months WHERE organization_id = :organization_id AND user_id IN (:users)', replacements);
    await sql.run(`INSERT INTO member_active_months ${MEMBER_ACTIVE_MONTHS_COLUMNS} ${memberActiveMonthsSql(sql.mysql, true)}`, replacements);
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
