/**
 * Every table that grows with use and what bounds it (docs/operating.md; docs/operating.md#what-grows-and-what-bounds-it). The data itself (users,
 * commits, pull requests, telemetry rollups) is bounded by what the organizations have; these are what the service
 * writes about its own work, which only grows unless something deletes it.
 */
export interface RetentionPolicy {
  table: string;
  /** The primary key: due rows are taken by key, so two pruners neither delete one row twice nor wait on each other. */
  key: readonly string[];
  /** The indexed time column the rows age by. */
  column: string;
  /** What else must hold for a row to go, in SQL over the table's own columns. */
  also?: string;
  /** How long a row is kept past `column`, in days; 0: once `column` (an expiry) has passed. */
  days: number;
}

/** The days each operator-set table is kept (configuration variables; defaults in docs/operating.md). */
export interface RetentionDays {
  OUTBOX_RETENTION_DAYS: number;
  WEBHOOK_DELIVERY_RETENTION_DAYS: number;
  WEBHOOK_ATTEMPT_RETENTION_DAYS: number;
  INGEST_DELIVERY_RETENTION_DAYS: number;
  OTLP_RAW_RETENTION_DAYS: number;
  TELEMETRY_RETENTION_DAYS: number;
  AUDIT_LOG_RETENTION_DAYS: number;
}

/**
 * In the order the pruner runs them: deliveries before the events they point to (an event goes only once no
 * delivery needs it for a replay).
 */
export function retentionPolicies(days: RetentionDays): RetentionPolicy[] {
  return [
    { table: 'webhook_attempts', key: ['id'], column: 'attempted_at', days: days.WEBHOOK_ATTEMPT_RETENTION_DAYS },
    // A pending delivery is still being sent (or waits for a disabled endpoint to come back): it stays.
    { table: 'webhook_deliveries', key: ['id'], column: 'updated_at', also: "status <> 'pending'", days: days.WEBHOOK_DELIVERY_RETENTION_DAYS },
    {
      table: 'outbox_events',
      key: ['seq'],
      column: 'created_at',
      also: 'NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_deliveries.event_seq = outbox_events.seq)',
      days: days.OUTBOX_RETENTION_DAYS,
    },
    // A provider's redelivery older than this is applied again; GitHub and GitLab redeliver within days.
    { table: 'ingest_deliveries', key: ['app_id', 'delivery_id'], column: 'received_at', days: days.INGEST_DELIVERY_RETENTION_DAYS },
    { table: 'telemetry_batches', key: ['id'], column: 'received_at', days: days.OTLP_RAW_RETENTION_DAYS },
    { table: 'telemetry_points', key: ['organization_id', 'series_key', 'start_at', 'end_at'], column: 'end_at', days: days.TELEMETRY_RETENTION_DAYS },
    { table: 'telemetry_events', key: ['id'], column: 'created_at', days: days.TELEMETRY_RETENTION_DAYS },
    // A series not seen for as long as its points are kept is forgotten too.
    { table: 'telemetry_series', key: ['organization_id', 'series_key'], column: 'last_at', days: days.TELEMETRY_RETENTION_DAYS },
    { table: 'audit_log', key: ['id'], column: 'created_at', days: days.AUDIT_LOG_RETENTION_DAYS },
    // The access feed reads changes seconds old (src/auth/accessChangeFeed.ts); a day is plenty.
    { table: 'access_changes', key: ['id'], column: 'created_at', days: 1 },
    // Sign-in's own housekeeping: expired sessions (also swept at each sign-in) and one-time links.
    { table: 'auth_sessions', key: ['id_hash'], column: 'expires_at', days: 0 },
    { table: 'login_links', key: ['token_hash'], column: 'expires_at', days: 0 },
  ];
}
