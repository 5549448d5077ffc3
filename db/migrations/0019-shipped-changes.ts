import { DataTypes, QueryInterface, QueryTypes } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * What each production deployment shipped, kept on it (DESIGN §16) by the deployment, commit, incident and telemetry
 * writers (src/services/git/shippedChanges.ts): `shipped_ai`, its changes (or, failed, those it would have shipped)
 * include an AI-assisted commit; `blamed`, an incident of its repository names its commit as the cause. Read at
 * request time these cost a range of commits per deployment: minutes for a year of the large data. Deployments
 * already stored get theirs here, found from the AI-assisted commits and the incidents.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
  await qi.addColumn('deployments', 'shipped_ai', flag);
  await qi.addColumn('deployments', 'blamed', flag);
  await markShippedChanges(qi);
}

/** Also what the demo seed runs after writing commits, deployments and incidents. */
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
  const startsWith = mysql ? 'LEFT(d.sha, CHAR_LENGTH(i.cause_sha)) = i.cause_sha' : 'substr(d.sha, 1, length(i.cause_sha)) = i.cause_sha';
  const blamed = `SELECT DISTINCT d.id FROM incidents i JOIN deployments d ON d.repository_id = i.repository_id AND ${startsWith} WHERE i.cause_sha IS NOT NULL`;
  for (const [column, sql] of [['shipped_ai', shippedAi], ['blamed', blamed]]) {
    const ids = (await qi.sequelize.query<{ id: string }>(sql, { type: QueryTypes.SELECT })).map((r) => r.id);
    for (let i = 0; i < ids.length; i += 1000) {
      await qi.sequelize.query(`UPDATE deployments SET ${column} = 1 WHERE id IN (:ids)`, { replacements: { ids: ids.slice(i, i + 1000) } });
    }
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'deployments', 'blamed');
  await dropColumn(qi, 'deployments', 'shipped_ai');
}
