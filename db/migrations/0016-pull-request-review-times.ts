import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * When someone other than its author first reviewed a pull request, and first approved it (DESIGN §16: pickup and
 * approval times), kept on the pull request by the review writer (src/services/git/reviews.ts), so that
 * collaboration and AI impact read a year of merged pull requests without a lookup of their activity each. Pull
 * requests already stored get theirs from their activity here.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const time = { type: DataTypes.DATE(3), allowNull: true };
  await qi.addColumn('pull_requests', 'first_review_at', time);
  await qi.addColumn('pull_requests', 'first_approval_at', time);
  await fillFirstReviews(qi);
}

/** From the stored activity: also what the demo seed runs after writing it. */
export async function fillFirstReviews(qi: QueryInterface): Promise<void> {
  const byOther = "a.pull_request_id = pull_requests.id AND a.kind <> 'commit' AND (a.actor_id IS NULL OR pull_requests.author_id IS NULL OR a.actor_id <> pull_requests.author_id)";
  await qi.sequelize.query(
    `UPDATE pull_requests SET
       first_review_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE ${byOther}),
       first_approval_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE ${byOther} AND a.kind = 'approved')
     WHERE EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id)`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'pull_requests', 'first_approval_at');
  await dropColumn(qi, 'pull_requests', 'first_review_at');
}
