import { DataTypes, QueryInterface } from 'sequelize';

/**
 * What the settings' setup view (docs/settings.md#setup) says of each git app and app: when its first and last
 * deliveries came (and the last one's event), and when its last delivery was refused and why, in the service's own
 * words (docs/ingest.md#what-a-refusal-leaves), never a body or a header. One row per connection, made by its first
 * delivery or refusal; the view reads an organization's rows as one range of its index.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };
  await qi.createTable('connection_states', {
    connection_id: { ...ref, primaryKey: true },
    organization_id: ref,
    first_delivery_at: optionalTs,
    last_delivery_at: optionalTs,
    last_event: { type: DataTypes.STRING(64), allowNull: true },
    last_refusal_at: optionalTs,
    // A word of the service's vocabulary (src/services/apps/connectionStates.ts), never what the sender sent.
    last_refusal: { type: DataTypes.STRING(40), allowNull: true },
  });
  await qi.addIndex('connection_states', ['organization_id'], { name: 'connection_states_organization_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('connection_states');
}
