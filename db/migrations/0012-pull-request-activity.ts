import { DataTypes, QueryInterface } from 'sequelize';

/**
 * Review activity on pull requests (docs/metrics.md#ai-review-and-cost-figures): each review, approval, comment and pushed commit, by whom and
 * when, as GitHub's `pull_request_review`, `pull_request_review_comment`, `issue_comment` and
 * `pull_request.synchronize` and GitLab's `Note Hook` and merge request approvals report them. Unique per pull
 * request and provider id, so a redelivery, or the same review arriving by two events, is stored once; listed by
 * pull request, and read by the collaboration metrics by organization and time.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const idType = mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40);
  const ref = { type: idType, allowNull: false };
  await qi.createTable('pull_request_activities', {
    id: { ...ref, primaryKey: true },
    pull_request_id: ref,
    repository_id: ref,
    git_app_id: ref,
    organization_id: ref,
    kind: { type: DataTypes.STRING(32), allowNull: false },
    actor_id: { type: idType, allowNull: true },
    external_id: { type: mysql ? 'VARCHAR(120) BINARY' : DataTypes.STRING(120), allowNull: false },
    created_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  const table = 'pull_request_activities';
  await qi.addIndex(table, ['pull_request_id', 'external_id'], { name: `${table}_pull_request_id_external_id_unique`, unique: true });
  await qi.addIndex(table, ['pull_request_id', 'created_at', 'id'], { name: `${table}_pull_request_id_created_at_id` });
  await qi.addIndex(table, ['organization_id', 'created_at', 'id'], { name: `${table}_organization_id_created_at_id` });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('pull_request_activities');
}
