import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * Which commits a pull request carries, for AI impact (docs/metrics.md#ai-review-and-cost-figures: a pull request is AI-assisted when one of its
 * commits is). Providers name a pull request's head commit and, once merged, the commit that landed it (a merge
 * or squash commit, which keeps the co-author trailers of the squashed ones); commits pushed while it was open
 * are its `commit` activity already. Null until a delivery says; pull requests stored before start with none.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sha = { type: DataTypes.STRING(40), allowNull: true };
  await qi.addColumn('pull_requests', 'head_sha', sha);
  await qi.addColumn('pull_requests', 'merge_commit_sha', sha);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'pull_requests', 'merge_commit_sha');
  await dropColumn(qi, 'pull_requests', 'head_sha');
}
