import { DataTypes, QueryInterface } from 'sequelize';

/**
 * Telemetry ingest over OTLP (docs/telemetry.md) and the AI usage it feeds (docs/metrics.md#ai-review-and-cost-figures):
 * - `otlp_tokens`: one organization's senders, optionally bound to one user; hashed like the other tokens.
 * - `telemetry_batches`: each accepted request body, gzip-compressed, kept OTLP_RAW_RETENTION_DAYS for replay;
 *   its hash makes a retried batch write nothing. A body from which never-stored content was dropped is kept
 *   as the JSON of what was stored instead (`sanitized`).
 * - `telemetry_series`: where each cumulative series stood (start and last value), so every instance turns the
 *   next point into the same delta.
 * - `telemetry_points`: Sum deltas and Gauge values, unique per series and interval.
 * - `telemetry_events`: log records, unique per organization and event key; `telemetry_accounts`: an AI
 *   vendor's account id seen with a member's e-mail, so later records carrying only the account id are theirs.
 * - `ai_usage_days`: per organization, UTC day, actor (`''` when unattributed), tool and model (`''` when the
 *   figure has none), the sums ai-usage (docs/metrics.md#ai-usage) reads; `ai_usage_org_days` the same per organization (members' and
 *   unattributed apart); `ai_active_months` which days each member was active; all written in the transaction
 *   that stores the points.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';
export const MEASURES = [
  'sessions',
  'prompts',
  'api_requests',
  'active_seconds_user',
  'active_seconds_cli',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'cost_usd',
  'lines_added',
  'lines_removed',
  'commits',
  'pull_requests',
  'edits_accepted',
  'edits_rejected',
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const idType = mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40);
  const ref = { type: idType, allowNull: false };
  const optionalRef = { type: idType, allowNull: true };
  const time = { type: DataTypes.DATE(3), allowNull: false };
  const key = { type: DataTypes.CHAR(32), allowNull: false };
  const name = { type: DataTypes.STRING(200), allowNull: false };

  await qi.createTable('otlp_tokens', {
    id: { ...ref, primaryKey: true },
    organization_id: ref,
    user_id: optionalRef,
    name,
    token_hash: { type: DataTypes.CHAR(64), allowNull: false, unique: true },
    preview: { type: DataTypes.STRING(40), allowNull: false },
    is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    last_used_at: { type: DataTypes.DATE(3), allowNull: true },
    revoked_at: { type: DataTypes.DATE(3), allowNull: true },
    created_at: time,
  });
  await qi.addIndex('otlp_tokens', ['organization_id'], { name: 'otlp_tokens_organization_id' });

  await qi.createTable('telemetry_batches', {
    id: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
    organization_id: ref,
    token_id: ref,
    signal_type: { type: DataTypes.STRING(10), allowNull: false },
    body_hash: { type: DataTypes.CHAR(64), allowNull: false },
    content_type: { type: DataTypes.STRING(40), allowNull: false },
    sanitized: { type: DataTypes.BOOLEAN, allowNull: false },
    body_gzip: { type: DataTypes.BLOB('long'), allowNull: false },
    received_at: time,
  });
  await qi.addIndex('telemetry_batches', ['organization_id', 'body_hash'], { name: 'telemetry_batches_organization_id_body_hash', unique: true });
  await qi.addIndex('telemetry_batches', ['received_at'], { name: 'telemetry_batches_received_at' });

  await qi.createTable('telemetry_series', {
    organization_id: { ...ref, primaryKey: true },
    series_key: { ...key, primaryKey: true },
    start_at: time,
    last_at: time,
    last_value: { type: DataTypes.DOUBLE, allowNull: false },
  });

  await qi.createTable('telemetry_points', {
    organization_id: { ...ref, primaryKey: true },
    series_key: { ...key, primaryKey: true },
    start_at: { ...time, primaryKey: true },
    end_at: { ...time, primaryKey: true },
    name,
    tool: { type: DataTypes.STRING(40), allowNull: false },
    user_id: optionalRef,
    value: { type: DataTypes.DOUBLE, allowNull: false },
    attributes: { type: DataTypes.TEXT, allowNull: false },
  });
  // Retention deletes by time across organizations (src/services/retention/policies.ts).
  await qi.addIndex('telemetry_points', ['end_at'], { name: 'telemetry_points_end_at' });

  await qi.createTable('telemetry_events', {
    id: { ...ref, primaryKey: true },
    organization_id: ref,
    event_key: key,
    name,
    source: { type: DataTypes.STRING(100), allowNull: false },
    user_id: optionalRef,
    session_id: { type: DataTypes.STRING(100), allowNull: true },
    attributes: { type: DataTypes.TEXT, allowNull: false },
    created_at: time,
  });
  await qi.addIndex('telemetry_events', ['organization_id', 'event_key'], { name: 'telemetry_events_organization_id_event_key', unique: true });
  // The events list (newest first, id breaking ties), whole or by one name, source or member: a range each.
  for (const filter of [[], ['name'], ['source'], ['user_id']]) {
    const fields = ['organization_id', ...filter, 'created_at', 'id'];
    await qi.addIndex('telemetry_events', fields, { name: `telemetry_events_${fields.join('_')}` });
  }

  await qi.addIndex('telemetry_events', ['created_at'], { name: 'telemetry_events_created_at' });
  await qi.addIndex('telemetry_series', ['last_at'], { name: 'telemetry_series_last_at' });

  await qi.createTable('telemetry_accounts', {
    organization_id: { ...ref, primaryKey: true },
    account_id: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
    user_id: ref,
    created_at: time,
  });

  const measures = Object.fromEntries(MEASURES.map((m) => [m, { type: DataTypes.DOUBLE, allowNull: false, defaultValue: 0 }]));
  await qi.createTable('ai_usage_days', {
    organization_id: { ...ref, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    user_key: { type: idType, allowNull: false, primaryKey: true },
    tool: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    model: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
    ...measures,
  });
  // Members' active days, read in member order (engagement, active users) or for a team's members.
  await qi.addIndex('ai_usage_days', ['organization_id', 'user_key', 'day'], { name: 'ai_usage_days_organization_id_user_key_day' });

  // Who was active when, a row per member, month and tool (and tool '' for any tool): bit d - 1 of `days` is set
  // when the member was active on day d of the month. A year's engagement reads twelve rows a member.
  await qi.createTable('ai_active_months', {
    organization_id: { ...ref, primaryKey: true },
    user_key: { type: idType, allowNull: false, primaryKey: true },
    month: { type: DataTypes.CHAR(7), allowNull: false, primaryKey: true },
    tool: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    days: { type: DataTypes.INTEGER, allowNull: false },
  });

  // The same sums per organization, day, tool and model, members' and unattributed apart: a year is a few
  // thousand rows, whatever the number of members.
  await qi.createTable('ai_usage_org_days', {
    organization_id: { ...ref, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    tool: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    model: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
    attributed: { type: DataTypes.BOOLEAN, allowNull: false, primaryKey: true },
    ...measures,
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of ['ai_active_months', 'ai_usage_org_days', 'ai_usage_days', 'telemetry_accounts', 'telemetry_events', 'telemetry_points', 'telemetry_series', 'telemetry_batches', 'otlp_tokens']) {
    await qi.dropTable(table);
  }
}
