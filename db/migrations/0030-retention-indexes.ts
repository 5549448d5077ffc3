import { QueryInterface } from 'sequelize';

/**
 * What the retention pruner (src/services/retention/) reads each batch by: one index range per table, oldest first.
 * The other pruned tables already have theirs (ingest_deliveries.received_at, the telemetry tables, access_changes,
 * auth_sessions and login_links).
 */
const INDEXES: [table: string, fields: string[], name: string][] = [
  ['webhook_attempts', ['attempted_at'], 'webhook_attempts_attempted_at'],
  ['webhook_deliveries', ['updated_at'], 'webhook_deliveries_updated_at'],
  // An event goes only when no delivery points at it: that check is one probe of this index.
  ['webhook_deliveries', ['event_seq'], 'webhook_deliveries_event_seq'],
  ['outbox_events', ['created_at'], 'outbox_events_created_at'],
  ['audit_log', ['created_at'], 'audit_log_created_at'],
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, fields, name] of INDEXES) await qi.addIndex(table, fields, { name });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, , name] of [...INDEXES].reverse()) await qi.removeIndex(table, name);
}
