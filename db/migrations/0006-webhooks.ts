import { DataTypes, QueryInterface } from 'sequelize';

/**
 * Outgoing webhooks (docs/webhooks.md):
 * - `webhook_endpoints`: an organization's subscriptions. The signing secret is sealed with SECRETS_KEY; after a
 *   rotation the previous one also signs until `previous_secret_expires_at`. `lease_until`/`leased_by` give one
 *   delivery worker at a time an endpoint, so its events go out in order and never twice at once.
 *   `failing_since` starts the five days after which a failing endpoint is disabled.
 * - `webhook_deliveries`: one event for one endpoint, written in the change's transaction beside the outbox row.
 *   A pending delivery waits for `next_attempt_at`; NULL pauses it while its endpoint is disabled. A worker
 *   finds endpoints with due deliveries and sends them by (endpoint, status, next_attempt_at); the oldest due
 *   one, for the queue lag, is the first entry of (status, next_attempt_at).
 * - `webhook_attempts`: every attempt (status, duration, excerpt of the answer), for `webhooks deliveries`.
 */
const ID_TYPE = DataTypes.STRING(40);
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const idType = mysql ? MYSQL_ID_TYPE : ID_TYPE;
  const id = { type: idType, allowNull: false, primaryKey: true };
  const ref = { type: idType, allowNull: false };
  const ts = { type: DataTypes.DATE(3), allowNull: false };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };

  await qi.createTable('webhook_endpoints', {
    id,
    organization_id: ref,
    url: { type: DataTypes.STRING(2048), allowNull: false },
    // A JSON array of event types; NULL subscribes to every event.
    event_types: { type: DataTypes.TEXT, allowNull: true },
    is_active: { type: DataTypes.BOOLEAN, allowNull: false },
    disabled_reason: { type: DataTypes.STRING(300), allowNull: true },
    secret: { type: DataTypes.TEXT, allowNull: false },
    previous_secret: { type: DataTypes.TEXT, allowNull: true },
    previous_secret_expires_at: optionalTs,
    failing_since: optionalTs,
    lease_until: optionalTs,
    leased_by: { type: DataTypes.STRING(100), allowNull: true },
    created_at: ts,
    updated_at: ts,
  });
  await qi.addIndex('webhook_endpoints', ['organization_id', 'is_active'], { name: 'webhook_endpoints_organization_id_is_active' });

  await qi.createTable('webhook_deliveries', {
    id,
    endpoint_id: ref,
    organization_id: ref,
    event_seq: { type: DataTypes.BIGINT, allowNull: false },
    event_id: ref,
    event_type: { type: DataTypes.STRING(64), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    next_attempt_at: optionalTs,
    replay_of: { type: idType, allowNull: true },
    created_at: ts,
    updated_at: ts,
  });
  await qi.addIndex('webhook_deliveries', ['status', 'next_attempt_at'], { name: 'webhook_deliveries_status_next_attempt_at' });
  await qi.addIndex('webhook_deliveries', ['endpoint_id', 'status', 'next_attempt_at'], { name: 'webhook_deliveries_endpoint_id_status_next_attempt_at' });

  await qi.createTable('webhook_attempts', {
    id: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
    delivery_id: ref,
    endpoint_id: ref,
    attempted_at: ts,
    duration_ms: { type: DataTypes.INTEGER, allowNull: false },
    status_code: { type: DataTypes.INTEGER, allowNull: true },
    error: { type: DataTypes.STRING(300), allowNull: true },
    response_excerpt: { type: DataTypes.STRING(1024), allowNull: true },
  });
  await qi.addIndex('webhook_attempts', ['endpoint_id', 'attempted_at'], { name: 'webhook_attempts_endpoint_id_attempted_at' });
  await qi.addIndex('webhook_attempts', ['delivery_id', 'attempted_at'], { name: 'webhook_attempts_delivery_id_attempted_at' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('webhook_attempts');
  await qi.dropTable('webhook_deliveries');
  await qi.dropTable('webhook_endpoints');
}
