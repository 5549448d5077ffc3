import { QueryTypes, Transaction } from 'sequelize';
import { Deployment } from '../../../../db/models';
import { aiCommitSql } from './pullRequestAi';
import { timestampSql } from '../../../persistence/query/selectSql';
import { lockRepositoryRollups } from '../repositories/repositoryLock';
import { timeOf } from './leadTimes';
import { markRecoveries } from '../../../../db/rollups/recoveries';

/**
 * What each deployment shipped, to whatever environment, kept on it (docs/metrics.md#ai-review-and-cost-figures:
 * "shipped changes per deployment") so that AI impact and DORA read deployments, not a range of commits per
 * deployment (minutes cold for a year of the large data): `shipped_ai`, whether the changes it shipped, or would
 * have (a failure), include an AI-assisted commit; `blamed`, whether an incident of its repository names its commit
 * as the cause; `rework`, below; `recovered_at`, when a failed one was recovered (db/rollups/recoveries.ts). Its changes are the commits of its repository created after the previous successful
 * deployment to the same environment (compared lowercased) finished, up to its own finish (as lead times count them:
 * leadTimes.ts). Kept for every environment: which are production is the organization's setting
 * (docs/metrics.md#what-counts), applied by the figures when they read.
 *
 * Recomputed for one repository by the writers whose rows decide them: a deployment (from the earlier of its old
 * and new finish: later deployments' previous one may move), commits and the telemetry that makes them AI-assisted
 * (from the earliest), an incident (its blame and rework, all deployments).
 */
const FINISHED = "d.status IN ('success', 'failure')";

/**
 * Rework (DORA 2024's deployment rework rate, docs/metrics.md#dora-the-four-keys-method): a deployment that finished
 * while an incident of its repository was open (after it opened, up to its resolution), or that deployed the commit
 * an incident names as its fix.
 */
const whileOpen = '(d.finished_at > i.created_at AND (i.resolved_at IS NULL OR d.finished_at <= i.resolved_at))';

/**
 * The deployments whose changes include an AI-assisted commit, found from those commits: commit c is among
 * deployment d's changes when d finished at or after it and no successful deployment to d's environment finished
 * from c up to before d (d's finish is at most that environment's first successful finish from c on).
 */
const shippedAiSql = (repository: string) => `SELECT DISTINCT d.id FROM commits c
  JOIN deployments d ON d.repository_id = c.repository_id AND ${FINISHED} AND d.finished_at >= c.created_at
    AND NOT EXISTS (SELECT 1 FROM deployments n WHERE n.repository_id = c.repository_id AND LOWER(n.environment) = LOWER(d.environment) AND n.status = 'success'
      AND n.finished_at >= c.created_at AND n.finished_at < d.finished_at)
  WHERE ${repository} AND ${aiCommitSql('c')}`;

/** Recomputes them for the repository's deployments that finished at or after `since` (all of them without). */
export async function refreshShippedChanges(transaction: Transaction | null, repositoryId: string, since: Date | null): Promise<void> {
  const sequelize = Deployment.sequelize!;
  const locking = transaction ? await lockRepositoryRollups(transaction, repositoryId) : '';
  const startsWith = (sha: string) => (sequelize.getDialect() === 'mysql' ? `LEFT(d.sha, CHAR_LENGTH(${sha})) = ${sha}` : `substr(d.sha, 1, length(${sha})) = ${sha}`);
  const from = since ? `d.finished_at >= ${timestampSql(sequelize, since)}` : '1 = 1';
  const select = async (sql: string) =>
    (await sequelize.query<{ id: string }>(sql + locking, { type: QueryTypes.SELECT, replacements: { repositoryId }, transaction })).map((r) => r.id);
  // Only commits after the last success before `since` of each environment deployed to since then can be among the
  // changes of those deployments (an environment without one: every commit): a delivery reads its own stretch of the
  // repository's commits, not all of them.
  const [floor] = since
    ? await sequelize.query<{ at: Date | string | null }>(
        `SELECT MIN(COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = :repositoryId AND LOWER(p.environment) = e.environment AND p.status = 'success'
             AND p.finished_at < ${timestampSql(sequelize, since)}), ${timestampSql(sequelize, new Date(0))})) AS at
           FROM (SELECT DISTINCT LOWER(d.environment) AS environment FROM deployments d WHERE d.repository_id = :repositoryId AND ${from}) AS e${locking}`,
        { type: QueryTypes.SELECT, replacements: { repositoryId }, transaction },
      )
    : [];
  const after = floor?.at ? ` AND c.created_at > ${timestampSql(sequelize, timeOf(floor.at))}` : '';
  const ai = await select(`${shippedAiSql('c.repository_id = :repositoryId')}${after} AND ${from}`);
  // The repository's incidents: every one that belongs to it (incident_repositories), a board's mapped to several too.
  const incidents = 'incident_repositories ir JOIN incidents i ON i.id = ir.incident_id JOIN deployments d ON d.repository_id = ir.repository_id';
  const blamed = await select(`SELECT DISTINCT d.id FROM ${incidents} AND ${startsWith('i.cause_sha')}
    WHERE ir.repository_id = :repositoryId AND i.cause_sha IS NOT NULL AND ${from}`);
  const rework = await select(`SELECT DISTINCT d.id FROM ${incidents} AND ${FINISHED}
    AND (${whileOpen} OR (i.fix_sha IS NOT NULL AND ${startsWith('i.fix_sha')}))
    WHERE ir.repository_id = :repositoryId AND ${from}`);
  // The three columns in one statement; an id list that is never empty keeps IN valid.
  const flag = (ids: string[], name: string) => `CASE WHEN d.id IN (:${name}) THEN 1 ELSE 0 END`;
  const listed = (ids: string[]) => (ids.length ? ids : ['']);
  await sequelize.query(
    `UPDATE deployments AS d SET shipped_ai = ${flag(ai, 'ai')}, blamed = ${flag(blamed, 'blamed')}, rework = ${flag(rework, 'rework')} WHERE d.repository_id = :repositoryId AND ${from}`,
    { replacements: { repositoryId, ai: listed(ai), blamed: listed(blamed), rework: listed(rework) }, transaction },
  );
  await refreshRecoveries(transaction, repositoryId, since, locking);
}

/**
 * Recoveries, once `blamed` is kept: a deployment from `since` on may be (or have been, before it moved or failed)
 * the next clean success of failed deployments before it, back to the last clean success before `since` of its
 * environment. So the recomputation reaches back to the earliest of those among the environments deployed to from
 * `since` on or recovered from `since` on (the environment of one that moved away); without any, nothing changed.
 */
async function refreshRecoveries(transaction: Transaction | null, repositoryId: string, since: Date | null, locking: string): Promise<void> {
  const sequelize = Deployment.sequelize!;
  if (!since) return markRecoveries(sequelize, repositoryId, { from: null, transaction, locking });
  const at = timestampSql(sequelize, since);
  const [reach] = await sequelize.query<{ environments: number; at: Date | string | null }>(
    `SELECT COUNT(*) AS environments, MIN(COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = :repositoryId AND LOWER(p.environment) = e.environment
         AND p.status = 'success' AND p.blamed = 0 AND p.finished_at < ${at}), ${timestampSql(sequelize, new Date(0))})) AS at
       FROM (SELECT DISTINCT LOWER(d.environment) AS environment FROM deployments d
         WHERE d.repository_id = :repositoryId AND (d.finished_at >= ${at} OR d.recovered_at >= ${at})) AS e${locking}`,
    { type: QueryTypes.SELECT, replacements: { repositoryId }, transaction },
  );
  if (!Number(reach?.environments) || !reach.at) return;
  await markRecoveries(sequelize, repositoryId, { from: timeOf(reach.at), transaction, locking });
}

export const earliest = (times: Date[]): Date => new Date(Math.min(...times.map((t) => t.getTime())));
