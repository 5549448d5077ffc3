import { DataTypes, QueryInterface } from 'sequelize';

/**
 * The accounts an app or a git app brought activity under that matched no member (docs/trackers.md#accounts):
 * the stored rows keep the member they were matched to, never the account, so without this an operator could not
 * tell whose accounts to link. A row per connection, account and kind of activity, with how many of them arrived
 * and when the last did; `apps unlinked` and `gitapps unlinked` read a connection's rows as one range of the key.
 * The git writers look up linked accounts by user name: that lookup gets an index of its own.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('unmatched_accounts', {
    connection_id: { ...ref, primaryKey: true },
    // A provider's account id or user name (case-exact), or a commit author's e-mail (lower-cased) when no user name came.
    account: { type: mysql ? 'VARCHAR(320) BINARY' : DataTypes.STRING(320), allowNull: false, primaryKey: true },
    kind: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    organization_id: ref,
    activity: { type: DataTypes.INTEGER, allowNull: false },
    last_seen_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('unmatched_accounts', ['organization_id'], { name: 'unmatched_accounts_organization_id' });
  await qi.addIndex('user_git_apps', ['git_app_id', 'username'], { name: 'user_git_apps_git_app_id_username' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('user_git_apps', 'user_git_apps_git_app_id_username');
  await qi.dropTable('unmatched_accounts');
}
