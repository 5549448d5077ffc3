import { DataTypes, QueryInterface } from 'sequelize';
import { fillPeerReviews } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * Each pull request activity keeps its pull request's author, and whether it is a peer review: a review action (not
 * a pushed commit) by someone other than that author (docs/metrics.md#ai-review-and-cost-figures), set by the review writer when it stores the
 * activity (src/services/git/pullRequests/reviews.ts; a pull request's author does not change). The collaboration figures then
 * read a year of review actions, and who reviewed whom, from one index range, where joining each to its pull request
 * took most of a second cold on the large data. Filled here from the pull requests already stored.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const id = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: true };
  await qi.addColumn('pull_request_activities', 'pull_request_author_id', id);
  await qi.addColumn('pull_request_activities', 'peer_review', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await fillPeerReviews(qi);
  await qi.addIndex('pull_request_activities', ['organization_id', 'peer_review', 'created_at', 'actor_id', 'pull_request_author_id'], { name: 'pull_request_activities_organization_id_peer_review' });
  await qi.addIndex('pull_request_activities', ['repository_id', 'peer_review', 'created_at', 'actor_id', 'pull_request_author_id'], { name: 'pull_request_activities_repository_id_peer_review' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('pull_request_activities', 'pull_request_activities_repository_id_peer_review');
  await qi.removeIndex('pull_request_activities', 'pull_request_activities_organization_id_peer_review');
  await dropColumn(qi, 'pull_request_activities', 'peer_review');
  await dropColumn(qi, 'pull_request_activities', 'pull_request_author_id');
}
