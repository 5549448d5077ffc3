import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * What identity providers send, kept as sent (issue 26), and access changes every instance hears of:
 * - `users.given_name`, `family_name`, `formatted_name`: the SCIM name parts. A user whose parts no identity
 *   provider sent has them derived from `name` (given name is its first word), as they were always answered.
 * - `user_emails`: a user's addresses as an identity provider sent them (Entra ID maps `mail` to the work
 *   address, `userPrincipalName` to `userName`), each matching the user as a commit or pull-request author. A
 *   user without rows has one address: `users.email`, as `work` and primary. An address is one user's.
 * - `access_changes`: users whose access a change altered (suspension, removal, role, team), read every second
 *   by every instance, which then forgets those users' cached tokens (docs/api.md#tokens-limits-and-headers: within 5 s everywhere).
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const part = { type: DataTypes.STRING(200), allowNull: true };
  await qi.addColumn('users', 'given_name', part);
  await qi.addColumn('users', 'family_name', part);
  await qi.addColumn('users', 'formatted_name', part);
  // The derivation the answers used until now, in SQL both databases read: split at the first space.
  const trimmed = 'TRIM(name)';
  const space = `INSTR(${trimmed}, ' ')`;
  await qi.sequelize.query(
    `UPDATE users SET formatted_name = ${trimmed},
       given_name = CASE WHEN ${space} = 0 THEN ${trimmed} ELSE SUBSTR(${trimmed}, 1, ${space} - 1) END,
       family_name = CASE WHEN ${space} = 0 THEN '' ELSE TRIM(SUBSTR(${trimmed}, ${space} + 1)) END`,
  );

  await qi.createTable('user_emails', {
    user_id: { ...ref, primaryKey: true },
    position: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
    email: { type: DataTypes.STRING(254), allowNull: false },
    type: { type: DataTypes.STRING(40), allowNull: true },
    is_primary: { type: DataTypes.BOOLEAN, allowNull: false },
  });
  await qi.addIndex('user_emails', ['email'], { name: 'user_emails_email', unique: true });

  await qi.createTable('access_changes', {
    id: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
    user_id: ref,
    created_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('access_changes', ['created_at'], { name: 'access_changes_created_at' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('access_changes');
  await qi.dropTable('user_emails');
  for (const column of ['formatted_name', 'family_name', 'given_name']) await dropColumn(qi, 'users', column);
}
