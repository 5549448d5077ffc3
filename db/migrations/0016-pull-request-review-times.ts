import { DataTypes, QueryInterface } from 'sequelize';
import { fillFirstReviews } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * When someone other than its author first reviewed a pull request, and first approved it (docs/metrics.md#ai-review-and-cost-figures: pickup and
 * approval times), kept on the pull request by the review writer (src/services/git/pullRequests/reviews.ts), so that
 * collaboration and AI impact read a year of merged pull requests without a lookup of their activity each. Pull
 * requests already stored get theirs from their activity here.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const time = { type: DataTypes.DATE(3), allowNull: true };
  await qi.addColumn('pull_requests', 'first_review_at', time);
  await qi.addColumn('pull_requests', 'first_approval_at', time);
  await fillFirstReviews(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'pull_requests', 'first_approval_at');
  await dropColumn(qi, 'pull_requests', 'first_review_at');
}
