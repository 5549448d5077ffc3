import { QueryInterface, QueryTypes } from 'sequelize';
import { durationBands } from './bands';
import { emptied } from './emptied';
import { AiCommitRule, aiCommitRuleSql } from './aiEvidence';

/**
 * What the deployment writers keep (src/services/git/rollups/shippedChanges.ts, leadTimes.ts), rebuilt from the stored
 * deployments, commits and incidents: by the migrations that added it (0019, 0021, 0033), the one that keeps it for
 * every environment apart (0048) and by the demo seed.
 *
 * `environments`: which deployments it is kept for. `each` (migration 0048 on): every environment apart, each
 * deployment's changes counted from the previous success of its own environment (compared lowercased), and the
 * figures pick the organization's production environments when they read. `production`: the shape before, kept for
 * the environment named `production` alone (the migrations before 0048, and 0048's down).
 */
export type KeptEnvironments = 'each' | 'production';

/** The deployments `alias` of the kept environments. */
const kept = (environments: KeptEnvironments, alias: string) => (environments === 'production' ? `LOWER(${alias}.environment) = 'production'` : '1 = 1');

/** From the stored commits (AI-assisted under `rule`), deployments and incidents. */
export async function markShippedChanges(qi: QueryInterface, environments: KeptEnvironments, rule: AiCommitRule): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  // Commit c is among deployment d's changes when d finished at or after it and no successful deployment to the same
  // environment finished from c up to before d: d finished from c up to that environment's first success at or after
  // c. Driven from the few AI-assisted commits, each distinct time once per environment of its repository (GROUP BY
  // also keeps the derived table apart), their first success one short range of a repository's deployments; driven
  // from the deployments, a large history read every commit of its repository for each deployment, for many minutes.
  const shippedAi = `SELECT DISTINCT d.id FROM (
      SELECT c.repository_id, c.created_at, e.environment,
        (SELECT MIN(s.finished_at) FROM deployments s WHERE s.repository_id = c.repository_id AND LOWER(s.environment) = e.environment AND s.status = 'success' AND s.finished_at >= c.created_at) AS shipped_at
      FROM commits c
      JOIN (SELECT DISTINCT k.repository_id, LOWER(k.environment) AS environment FROM deployments k WHERE k.repository_id IS NOT NULL AND ${kept(environments, 'k')}) AS e ON e.repository_id = c.repository_id
      WHERE ${aiCommitRuleSql(rule, 'c')} GROUP BY c.repository_id, c.created_at, e.environment) AS a
    JOIN deployments d ON d.repository_id = a.repository_id AND LOWER(d.environment) = a.environment AND d.status IN ('success', 'failure')
      AND d.finished_at >= a.created_at AND (a.shipped_at IS NULL OR d.finished_at <= a.shipped_at)`;
  const startsWith = (sha: string) => startsWithSql(mysql, sha);
  const blamed = `SELECT DISTINCT d.id FROM incidents i JOIN deployments d ON d.repository_id = i.repository_id AND ${startsWith('i.cause_sha')} WHERE i.cause_sha IS NOT NULL`;
  for (const [column, sql] of [['shipped_ai', shippedAi], ['blamed', blamed]]) await mark(qi, column, sql);
}

/** Sets `column` on the deployments `sql` selects, a thousand at a time. */
async function mark(qi: QueryInterface, column: string, sql: string): Promise<void> {
  const ids = (await qi.sequelize.query<{ id: string }>(sql, { type: QueryTypes.SELECT })).map((r) => r.id);
  for (let i = 0; i < ids.length; i += 1000) {
    await qi.sequelize.query(`UPDATE deployments SET ${column} = 1 WHERE id IN (:ids)`, { replacements: { ids: ids.slice(i, i + 1000) } });
  }
}

/** The deployment's sha starts with the incident's `sha` column (an abbreviation names the commit it abbreviates). */
const startsWithSql = (mysql: boolean, sha: string) => (mysql ? `LEFT(d.sha, CHAR_LENGTH(${sha})) = ${sha}` : `substr(d.sha, 1, length(${sha})) = ${sha}`);

/**
 * Deployments that finished while an incident of their repository was open, or that deployed the commit an incident
 * names as its fix (src/services/git/rollups/shippedChanges.ts keeps them as they change).
 */
const reworkSql = (mysql: boolean, environments: KeptEnvironments) => `SELECT DISTINCT d.id FROM incidents i JOIN deployments d ON d.repository_id = i.repository_id
    AND ${kept(environments, 'd')} AND d.status IN ('success', 'failure')
    AND ((d.finished_at > i.created_at AND (i.resolved_at IS NULL OR d.finished_at <= i.resolved_at)) OR (i.fix_sha IS NOT NULL AND ${startsWithSql(mysql, 'i.fix_sha')}))`;

/** Marks rework among the stored deployments (its column added by migration 0033). */
export async function markRework(qi: QueryInterface, environments: KeptEnvironments): Promise<void> {
  await mark(qi, 'rework', reworkSql(qi.sequelize.getDialect() === 'mysql', environments));
}

/** From the stored deployments and commits. */
export async function fillLeadTimes(qi: QueryInterface, environments: KeptEnvironments): Promise<void> {
  await emptied(qi, 'lead_time_days', 'shipped_changes');
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const leadMs = mysql ? 'TIMESTAMPDIFF(MICROSECOND, c.created_at, x.finished_at) DIV 1000' : 'CAST(ROUND((julianday(x.finished_at) - julianday(c.created_at)) * 86400000) AS INTEGER)';
  const epoch = mysql ? "'1970-01-01 00:00:00.000'" : "'1970-01-01 00:00:00.000 +00:00'";
  // The environment column and key exist from migration 0048 on.
  const [environment, x, grouped] = environments === 'each' ? [', environment', ', x.environment', ', environment'] : ['', '', ''];
  // GROUP BY materialises the deployments, each previous finish found once: merged into the join, MariaDB looked it
  // up again for every commit (hours for a million).
  await qi.sequelize.query(
    `INSERT INTO shipped_changes (deployment_id, commit_id, repository_id, organization_id${environment}, finished_at, band, lead_ms)
     SELECT x.id, c.id, x.repository_id, x.organization_id${x}, x.finished_at, ${durationBands.sql(leadMs)}, ${leadMs}
     FROM (SELECT d.id, d.repository_id, d.organization_id, LOWER(d.environment) AS environment, d.finished_at,
             COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = d.repository_id AND LOWER(p.environment) = LOWER(d.environment)
               AND p.status = 'success' AND p.finished_at < d.finished_at), ${epoch}) AS previous_finished_at
           FROM deployments d WHERE d.status = 'success' AND ${kept(environments, 'd')} GROUP BY d.id, d.repository_id, d.organization_id, d.environment, d.finished_at) AS x
     JOIN commits c ON c.repository_id = x.repository_id AND c.created_at > x.previous_finished_at AND c.created_at <= x.finished_at`,
  );
  const day = mysql ? 'DATE(finished_at)' : 'date(finished_at)';
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(
      `INSERT INTO lead_time_days (scope_id, day${grouped}, band, changes) SELECT ${scope}, ${day}${grouped}, band, COUNT(*) FROM shipped_changes GROUP BY ${scope}, ${day}${grouped}, band`,
    );
  }
}
