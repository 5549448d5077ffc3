import { DataTypes, QueryInterface } from 'sequelize';

/**
 * Product settings (docs/settings.md): browser sessions and sign-ins under way (when Redis is not configured), one-time
 * sign-in links, and the audit log of every change made to an organization's credentials and webhooks.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const id = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const hash = { type: DataTypes.CHAR(64), allowNull: false, primaryKey: true };
  const time = { type: DataTypes.DATE(3), allowNull: false };
  await qi.createTable('auth_sessions', {
    id_hash: hash,
    kind: { type: DataTypes.STRING(16), allowNull: false },
    user_id: { ...id, allowNull: true },
    data: { type: DataTypes.TEXT, allowNull: false },
    created_at: time,
    expires_at: time,
  });
  await qi.addIndex('auth_sessions', ['user_id'], { name: 'auth_sessions_user_id' });
  await qi.addIndex('auth_sessions', ['expires_at'], { name: 'auth_sessions_expires_at' });
  await qi.createTable('login_links', {
    token_hash: hash,
    user_id: id,
    created_at: time,
    expires_at: time,
    used_at: { type: DataTypes.DATE(3), allowNull: true },
  });
  await qi.addIndex('login_links', ['expires_at'], { name: 'login_links_expires_at' });
  await qi.createTable('audit_log', {
    id: { ...id, primaryKey: true },
    organization_id: id,
    actor_type: { type: DataTypes.STRING(16), allowNull: false },
    actor_user_id: { ...id, allowNull: true },
    action: { type: DataTypes.STRING(60), allowNull: false },
    target_type: { type: DataTypes.STRING(40), allowNull: false },
    target_id: id,
    details: { type: DataTypes.TEXT, allowNull: false },
    created_at: time,
  });
  await qi.addIndex('audit_log', ['organization_id', 'created_at', 'id'], { name: 'audit_log_organization_created' });
  await qi.addIndex('audit_log', ['organization_id', 'action', 'created_at', 'id'], { name: 'audit_log_organization_action' });
  await qi.addIndex('audit_log', ['organization_id', 'actor_user_id', 'created_at', 'id'], { name: 'audit_log_organization_actor' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('audit_log');
  await qi.dropTable('login_links');
  await qi.dropTable('auth_sessions');
}
