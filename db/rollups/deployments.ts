import { QueryInterface, QueryTypes } from 'sequelize';
import { durationBands } from './bands';
import { emptied } from './emptied';

/**
 * What the deployment writers keep (src/services/git/rollups/shippedChanges.ts, leadTimes.ts), rebuilt from the stored
 * deployments, commits and incidents: by the migrations that added it (0019, 0021) and by the demo seed.
 */

/** From the stored commits, deployments and incidents. */
export async function markShippedChanges(qi: QueryInterface): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const production = (d: string) => `LOWER(${d}.environment) = 'production'`;
  // Commit c is among deployment d's changes when d finished at or after it and no successful one finished from c up
  // to before d: d finished from c up to the first success at or after c. Driven from the few AI-assisted commits
  // (each distinct time once: GROUP BY also keeps the derived table apart), their first success one short range of a
  // repository's deployments; driven from the deployments, a large history read every commit of its repository for
  // each deployment, for many minutes.
  const shippedAi = `SELECT DISTINCT d.id FROM (
      SELECT c.repository_id, c.created_at,
        (SELECT MIN(s.finished_at) FROM deployments s WHERE s.repository_id = c.repository_id AND ${production('s')} AND s.status = 'success' AND s.finished_at >= c.created_at) AS shipped_at
      FROM commits c WHERE c.ai_assisted = 1 OR c.author_ai_active = 1 GROUP BY c.repository_id, c.created_at) AS a
    JOIN deployments d ON d.repository_id = a.repository_id AND ${production('d')} AND d.status IN ('success', 'failure')
      AND d.finished_at >= a.created_at AND (a.shipped_at IS NULL OR d.finished_at <= a.shipped_at)`;
  const startsWith = (sha: string) => startsWithSql(mysql, sha);
  const blamed = `SELECT DISTINCT d.id FROM incidents i JOIN deployments d ON d.repository_id = i.repository_id AND ${startsWith('i.cause_sha')} WHERE i.cause_sha IS NOT NULL`;
  for (const [column, sql] of [['shipped_ai', shippedAi], ['blamed', blamed]]) {
    const ids = (await qi.sequelize.query<{ id: string }>(sql, { type: QueryTypes.SELECT })).map((r) => r.id);
    for (let i = 0; i < ids.length; i += 1000) {
      await qi.sequelize.query(`UPDATE deployments SET ${column} = 1 WHERE id IN (:ids)`, { replacements: { ids: ids.slice(i, i + 1000) } });
    }
  }
}

/** The deployment's sha starts with the incident's `sha` column (an abbreviation names the commit it abbreviates). */
const startsWithSql = (mysql: boolean, sha: string) => (mysql ? `LEFT(d.sha, CHAR_LENGTH(${sha})) = ${sha}` : `substr(d.sha, 1, length(${sha})) = ${sha}`);

/**
 * Production deployments that finished while an incident of their repository was open, or that deployed the commit
 * an incident names as its fix (src/services/git/rollups/shippedChanges.ts keeps them as they change).
 */
const reworkSql = (mysql: boolean) => `SELECT DISTINCT d.id FROM incidents i JOIN deployments d ON d.repository_id = i.repository_id
    AND LOWER(d.environment) = 'production' AND d.status IN ('success', 'failure')
    AND ((d.finished_at > i.created_at AND (i.resolved_at IS NULL OR d.finished_at <= i.resolved_at)) OR (i.fix_sha IS NOT NULL AND ${startsWithSql(mysql, 'i.fix_sha')}))`;

/** Marks rework among the stored deployments (its column added by migration 0033). */
export async function markRework(qi: QueryInterface): Promise<void> {
  const ids = (await qi.sequelize.query<{ id: string }>(reworkSql(qi.sequelize.getDialect() === 'mysql'), { type: QueryTypes.SELECT })).map((r) => r.id);
  for (let i = 0; i < ids.length; i += 1000) await qi.sequelize.query('UPDATE deployments SET rework = 1 WHERE id IN (:ids)', { replacements: { ids: ids.slice(i, i + 1000) } });
}

/** From the stored deployments and commits. */
export async function fillLeadTimes(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'lead_time_days', 'shipped_changes');
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const leadMs = mysql ? 'TIMESTAMPDIFF(MICROSECOND, c.created_at, x.finished_at) DIV 1000' : 'CAST(ROUND((julianday(x.finished_at) - julianday(c.created_at)) * 86400000) AS INTEGER)';
  const epoch = mysql ? "'1970-01-01 00:00:00.000'" : "'1970-01-01 00:00:00.000 +00:00'";
  // GROUP BY materialises the deployments, each previous finish found once: merged into the join, MariaDB looked it
  // up again for every commit (hours for a million).
  const success = (d: string) => `LOWER(${d}.environment) = 'production' AND ${d}.status = 'success'`;
  await qi.sequelize.query(
    `INSERT INTO shipped_changes (deployment_id, commit_id, repository_id, organization_id, finished_at, band, lead_ms)
     SELECT x.id, c.id, x.repository_id, x.organization_id, x.finished_at, ${durationBands.sql(leadMs)}, ${leadMs}
     FROM (SELECT d.id, d.repository_id, d.organization_id, d.finished_at,
             COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = d.repository_id AND ${success('p')} AND p.finished_at < d.finished_at), ${epoch}) AS previous_finished_at
           FROM deployments d WHERE ${success('d')} GROUP BY d.id, d.repository_id, d.organization_id, d.finished_at) AS x
     JOIN commits c ON c.repository_id = x.repository_id AND c.created_at > x.previous_finished_at AND c.created_at <= x.finished_at`,
  );
  const day = mysql ? 'DATE(finished_at)' : 'date(finished_at)';
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(`INSERT INTO lead_time_days (scope_id, day, band, changes) SELECT ${scope}, ${day}, band, COUNT(*) FROM shipped_changes GROUP BY ${scope}, ${day}, band`);
  }
}
