import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';

/**
 * `author_days`: per organization, each day a member committed on, with their previous such day. The commit writer
 * keeps it row by row and counts a leaving repository's authors again with this SQL
 * (src/services/git/rollups/authorDays.ts); migration 0024 and the demo seed build it whole.
 */

/** Each author's days and previous days, from the commits `where` picks (alias c), as rows of author_days. */
export function authorDaysSql(mysql: boolean, where: string): string {
  const day = mysql ? 'DATE(c.created_at)' : 'date(c.created_at)';
  return `SELECT x.organization_id, x.user_id, x.day, LAG(x.day) OVER (PARTITION BY x.organization_id, x.user_id ORDER BY x.day)
    FROM (SELECT c.organization_id, c.author_id AS user_id, ${day} AS day FROM commits c WHERE c.author_id IS NOT NULL AND ${where} GROUP BY c.organization_id, c.author_id, ${day}) AS x`;
}

/** From the stored commits. */
export async function fillAuthorDays(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'author_days');
  await qi.sequelize.query(`INSERT INTO author_days (organization_id, user_id, day, previous_day) ${authorDaysSql(qi.sequelize.getDialect() === 'mysql', '1 = 1')}`);
}
