import { DataTypes, QueryInterface } from 'sequelize';

/**
 * Member lists (organization members, team members and managers, and the users a caller can see) are sorted by
 * the member's user fields. Sorting through a join to `users` made MariaDB read every membership of a scope
 * and sort them (seconds for an 80,000-member organization). The sort fields are kept on the membership rows
 * as well, so each (scope, sort) pair is one index range: (scope, user field, user_id). Writers that change a
 * user's name or e-mail update them in the same transaction (docs/architecture.md#writers).
 */
const MEMBERSHIP_TABLES = { organization_memberships: 'organization_id', team_memberships: 'team_id' } as const;
const SORT_COLUMNS = {
  user_name: { type: DataTypes.STRING(200), allowNull: true },
  user_email: { type: DataTypes.STRING(254), allowNull: true },
  user_created_at: { type: DataTypes.DATE(3), allowNull: true },
};

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  for (const [table, scope] of Object.entries(MEMBERSHIP_TABLES)) {
    for (const [column, spec] of Object.entries(SORT_COLUMNS)) await qi.addColumn(table, column, spec);
    await qi.sequelize.query(
      mysql
        ? `UPDATE ${table} m JOIN users u ON u.id = m.user_id SET m.user_name = u.name, m.user_email = u.email, m.user_created_at = u.created_at`
        : `UPDATE ${table} SET user_name = u.name, user_email = u.email, user_created_at = u.created_at FROM users u WHERE u.id = ${table}.user_id`,
    );
    for (const column of Object.keys(SORT_COLUMNS)) {
      await qi.addIndex(table, [scope, column, 'user_id'], { name: `${table}_${scope}_${column}_user_id` });
    }
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, scope] of Object.entries(MEMBERSHIP_TABLES)) {
    for (const column of Object.keys(SORT_COLUMNS)) {
      await qi.removeIndex(table, `${table}_${scope}_${column}_user_id`);
      await qi.removeColumn(table, column);
    }
  }
}
