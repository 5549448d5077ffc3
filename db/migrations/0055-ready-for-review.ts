import { DataTypes, QueryInterface } from 'sequelize';
import { fillPullRequestMonths, fillPullRequestSamples } from '../rollups/pullRequests';
import { MEASURES } from '../rollups/pullRequestMeasures';
import { dropColumn } from './0004-write-path';

/**
 * When a pull request became ready for review (docs/metrics.md#what-counts: `drafts_from_ready`): `draft`, whether it
 * is a draft now, and `ready_for_review_at`, the last time it left draft before its merge (null: opened ready, or
 * stored before this). Kept by the pull request writer from GitHub's and GitLab's deliveries and the history
 * importers (docs/ingest.md). The merged pull requests' samples gain the measures from ready for review
 * (pullRequestMeasures.ts: `mergeFromReady`, `pickupFromReady`, `approvalFromReady`) so that the setting is read,
 * never recomputed: for the pull requests stored before, whose deliveries were not kept, they equal the measures from
 * opening, until a delivery or an import says when each became ready. Every step refills from the stored rows: run
 * again after failing halfway, it ends where one run does.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('pull_requests', 'draft', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await qi.addColumn('pull_requests', 'ready_for_review_at', { type: DataTypes.DATE(3), allowNull: true });
  await fillPullRequestSamples(qi);
  await fillPullRequestMonths(qi);
}

/** The measures from ready for review leave the samples and their counts; each column only while it is there. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const fromReady = [MEASURES.mergeFromReady.id, MEASURES.pickupFromReady.id, MEASURES.approvalFromReady.id].join(', ');
  for (const table of ['pull_request_months', 'pull_request_days', 'pull_request_samples']) await qi.sequelize.query(`DELETE FROM ${table} WHERE measure IN (${fromReady})`);
  const columns = Object.keys(await qi.describeTable('pull_requests'));
  for (const column of ['ready_for_review_at', 'draft']) if (columns.includes(column)) await dropColumn(qi, 'pull_requests', column);
}
