import { DataTypes, QueryInterface } from 'sequelize';
import { fillPullRequestReviewers, fillPullRequestSamples } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * What the review, collaboration, AI impact and financial figures measure on each merged pull request (docs/metrics.md,
 * docs/metrics.md#ai-review-and-cost-figures), kept by the pull request and review writers (src/services/git/rollups/pullRequestSamples.ts), so that a year of an
 * organization's merged pull requests is read as a few hundred daily counts and one band of values per percentile:
 * - on the pull request: `iterated` (a commit was pushed after it opened) and `sole_reviewer_id` (the one other
 *   person who reviewed it, when exactly one did);
 * - `pull_request_samples`: per merged pull request and measure, its value and band (db/rollups/bands.ts);
 * - `pull_request_days`: per repository and per organization (`scope_id`), UTC day of merge, measure, AI-assisted
 *   or not, and band, how many merged pull requests.
 * Filled here from the pull requests and activity already stored, with the writer's measures and bands.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const id = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.addColumn('pull_requests', 'iterated', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await qi.addColumn('pull_requests', 'sole_reviewer_id', { ...id, allowNull: true });
  await qi.createTable('pull_request_samples', {
    pull_request_id: { ...id, primaryKey: true },
    measure: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    repository_id: id,
    organization_id: id,
    merged_at: { type: DataTypes.DATE(3), allowNull: false },
    ai: { type: DataTypes.BOOLEAN, allowNull: false },
    band: { type: DataTypes.SMALLINT, allowNull: false },
    value: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.createTable('pull_request_days', {
    scope_id: { ...id, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    measure: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    ai: { type: DataTypes.BOOLEAN, allowNull: false, primaryKey: true },
    band: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    pull_requests: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await fillPullRequestReviewers(qi);
  // Filled before the indexes are built: much faster for a large history.
  await fillPullRequestSamples(qi);
  // A band's values in a window, per organization or repository, from the index alone.
  await qi.addIndex('pull_request_samples', ['organization_id', 'measure', 'ai', 'band', 'merged_at', 'value'], { name: 'pull_request_samples_organization_id_band' });
  await qi.addIndex('pull_request_samples', ['repository_id', 'measure', 'ai', 'band', 'merged_at', 'value'], { name: 'pull_request_samples_repository_id_band' });
  // Knowledge silos: who reviewed each author's merged pull requests, from the index alone.
  await qi.addIndex('pull_requests', ['organization_id', 'merged_at', 'author_id', 'sole_reviewer_id'], { name: 'pull_requests_organization_id_merged_at_reviewer' });
  await qi.addIndex('pull_requests', ['repository_id', 'merged_at', 'author_id', 'sole_reviewer_id'], { name: 'pull_requests_repository_id_merged_at_reviewer' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('pull_requests', 'pull_requests_repository_id_merged_at_reviewer');
  await qi.removeIndex('pull_requests', 'pull_requests_organization_id_merged_at_reviewer');
  await qi.dropTable('pull_request_days');
  await qi.dropTable('pull_request_samples');
  await dropColumn(qi, 'pull_requests', 'sole_reviewer_id');
  await dropColumn(qi, 'pull_requests', 'iterated');
}
