import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { OPTIONAL_TIMESTAMP, REF, TIMESTAMP } from './types';

/**
 * A webhook delivery already applied (docs/ingest.md), keyed by the provider's delivery id (`X-GitHub-Delivery`,
 * `X-Gitlab-Event-UUID`): written in the delivery's change, so a redelivery finds it and changes nothing.
 */
export class IngestDelivery extends Model<InferAttributes<IngestDelivery>, InferCreationAttributes<IngestDelivery>> {
  /** The app or git app it came to. */
  declare app_id: string;
  declare delivery_id: string;
  declare event: string;
  declare received_at: Date;
}

/**
 * What a connection (a git app or an app) last received and last refused (docs/settings.md#setup): made by its first
 * delivery or refusal. A refusal's reason is a word of the service's vocabulary, never what the sender sent.
 */
export class ConnectionState extends Model<InferAttributes<ConnectionState>, InferCreationAttributes<ConnectionState>> {
  /** The git app or app. */
  declare connection_id: string;
  declare organization_id: string;
  declare first_delivery_at: Date | null;
  declare last_delivery_at: Date | null;
  declare last_event: string | null;
  declare last_refusal_at: Date | null;
  declare last_refusal: string | null;
}

/**
 * A connection read from its provider's API (docs/history.md): the lease one run holds, the address it was read at,
 * and its last run as the setup view shows it. Made by its first import.
 */
export class HistoryImport extends Model<InferAttributes<HistoryImport>, InferCreationAttributes<HistoryImport>> {
  /** The git app or app. */
  declare connection_id: string;
  declare organization_id: string;
  declare connection_type: 'app' | 'git_app';
  /** The operator's `--base-url` (a self-hosted server), read again by the daily catch-up; null for the provider's own. */
  declare base_url: string | null;
  declare lease_owner: CreationOptional<string | null>;
  declare lease_until: CreationOptional<Date | null>;
  declare started_at: CreationOptional<Date | null>;
  declare finished_at: CreationOptional<Date | null>;
  declare outcome: CreationOptional<HistoryOutcomeKind | null>;
  /** Why it stopped, naming the scope: never a credential or what the provider answered at length. */
  declare message: CreationOptional<string | null>;
  declare window_since: CreationOptional<Date | null>;
  declare window_until: CreationOptional<Date | null>;
  declare items_read: CreationOptional<number>;
  /** Items the import created: what the webhooks had not brought. */
  declare items_found: CreationOptional<number>;
  declare updated_at: Date;
}

/** How a run ended: every scope read to its end, the credential refused, an answer it could not use, stopped when asked (a signal, a process stopping), or still under way (or killed). */
export const HISTORY_OUTCOMES = ['complete', 'refused', 'failed', 'stopped', 'running'] as const;
export type HistoryOutcomeKind = (typeof HISTORY_OUTCOMES)[number];

/** Where a connection's history of one kind in one scope stands (docs/history.md#resuming). */
export class HistoryCursor extends Model<InferAttributes<HistoryCursor>, InferCreationAttributes<HistoryCursor>> {
  declare connection_id: string;
  /** The provider's id of the repository, service or channel. */
  declare scope_key: string;
  declare kind: string;
  declare organization_id: string;
  declare scope_name: string;
  /** The window being read, or last read. */
  declare window_since: Date;
  declare window_until: Date;
  /** Where the listing resumes: the importer's own cursor; null at the window's start or once complete. */
  declare next_page: string | null;
  declare complete: boolean;
  /** The end of the last window read to its end: the next run reads from a little before it. */
  declare read_through: Date | null;
  declare items_read: number;
  declare items_found: number;
  declare updated_at: Date;
}

export function initIngest(sequelize: Sequelize): void {
  IngestDelivery.init(
    {
      app_id: { ...REF, primaryKey: true },
      delivery_id: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
      event: { type: DataTypes.STRING(64), allowNull: false },
      received_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'ingest_deliveries', modelName: 'ingest_delivery' },
  );
  ConnectionState.init(
    {
      connection_id: { ...REF, primaryKey: true },
      organization_id: { ...REF },
      first_delivery_at: { ...OPTIONAL_TIMESTAMP },
      last_delivery_at: { ...OPTIONAL_TIMESTAMP },
      last_event: { type: DataTypes.STRING(64), allowNull: true },
      last_refusal_at: { ...OPTIONAL_TIMESTAMP },
      last_refusal: { type: DataTypes.STRING(40), allowNull: true },
    },
    { sequelize, tableName: 'connection_states', modelName: 'connection_state' },
  );
  HistoryImport.init(
    {
      connection_id: { ...REF, primaryKey: true },
      organization_id: { ...REF },
      connection_type: { type: DataTypes.STRING(10), allowNull: false },
      base_url: { type: DataTypes.STRING(500), allowNull: true },
      lease_owner: { type: DataTypes.STRING(64), allowNull: true },
      lease_until: { ...OPTIONAL_TIMESTAMP },
      started_at: { ...OPTIONAL_TIMESTAMP },
      finished_at: { ...OPTIONAL_TIMESTAMP },
      outcome: { type: DataTypes.STRING(20), allowNull: true },
      message: { type: DataTypes.STRING(500), allowNull: true },
      window_since: { ...OPTIONAL_TIMESTAMP },
      window_until: { ...OPTIONAL_TIMESTAMP },
      items_read: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      items_found: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'history_imports', modelName: 'history_import' },
  );
  HistoryCursor.init(
    {
      connection_id: { ...REF, primaryKey: true },
      scope_key: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
      kind: { type: DataTypes.STRING(20), allowNull: false, primaryKey: true },
      organization_id: { ...REF },
      scope_name: { type: DataTypes.STRING(300), allowNull: false },
      window_since: { ...TIMESTAMP },
      window_until: { ...TIMESTAMP },
      next_page: { type: DataTypes.TEXT, allowNull: true },
      complete: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      read_through: { ...OPTIONAL_TIMESTAMP },
      items_read: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      items_found: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'history_cursors', modelName: 'history_cursor' },
  );
}
