import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes, CreationOptional } from 'sequelize';
import { ID, NAME, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, TIMESTAMP } from './types';

/** An OTLP sender's credential: one organization, optionally one user (docs/telemetry.md). Only its hash is stored. */
export class OtlpToken extends Model<InferAttributes<OtlpToken>, InferCreationAttributes<OtlpToken>> {
  declare id: string;
  declare organization_id: string;
  declare user_id: string | null;
  declare name: string;
  declare token_hash: string;
  declare preview: string;
  declare is_active: boolean;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare created_at: Date;
}

/** An accepted request body, gzip-compressed, kept for replay; its hash makes a retried batch a no-op. */
export class TelemetryBatch extends Model<InferAttributes<TelemetryBatch>, InferCreationAttributes<TelemetryBatch>> {
  declare id: CreationOptional<number>;
  declare organization_id: string;
  declare token_id: string;
  declare signal_type: 'metrics' | 'logs' | 'traces';
  declare body_hash: string;
  declare content_type: string;
  declare sanitized: boolean;
  declare body_gzip: Buffer;
  declare received_at: Date;
}

/** A custom or AI tool event (an OTLP log record), as listed under /v1/organizations/{id}/telemetry/events. */
export class TelemetryEvent extends Model<InferAttributes<TelemetryEvent>, InferCreationAttributes<TelemetryEvent>> {
  declare id: string;
  declare organization_id: string;
  declare event_key: string;
  declare name: string;
  declare source: string;
  declare user_id: string | null;
  declare session_id: string | null;
  declare attributes: string;
  declare created_at: Date;
}

/** An AI vendor's account id seen with a member's e-mail. */
export class TelemetryAccount extends Model<InferAttributes<TelemetryAccount>, InferCreationAttributes<TelemetryAccount>> {
  declare organization_id: string;
  declare account_id: string;
  declare user_id: string;
  declare created_at: Date;
}

export function initTelemetry(sequelize: Sequelize): void {
  OtlpToken.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      user_id: { ...OPTIONAL_REF },
      name: { ...NAME },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false, unique: true },
      preview: { type: DataTypes.STRING(40), allowNull: false },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      last_used_at: { ...OPTIONAL_TIMESTAMP },
      revoked_at: { ...OPTIONAL_TIMESTAMP },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'otlp_tokens', modelName: 'otlp_token' },
  );
  TelemetryBatch.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      organization_id: { ...REF },
      token_id: { ...REF },
      signal_type: { type: DataTypes.STRING(10), allowNull: false },
      body_hash: { type: DataTypes.CHAR(64), allowNull: false },
      content_type: { type: DataTypes.STRING(40), allowNull: false },
      sanitized: { type: DataTypes.BOOLEAN, allowNull: false },
      body_gzip: { type: DataTypes.BLOB('long'), allowNull: false },
      received_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'telemetry_batches', modelName: 'telemetry_batch' },
  );
  TelemetryEvent.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      event_key: { type: DataTypes.CHAR(32), allowNull: false },
      name: { ...NAME },
      source: { type: DataTypes.STRING(100), allowNull: false },
      user_id: { ...OPTIONAL_REF },
      session_id: { type: DataTypes.STRING(100), allowNull: true },
      attributes: { type: DataTypes.TEXT, allowNull: false },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'telemetry_events', modelName: 'telemetry_event' },
  );
  TelemetryAccount.init(
    {
      organization_id: { ...REF, primaryKey: true },
      account_id: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
      user_id: { ...REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'telemetry_accounts', modelName: 'telemetry_account' },
  );
}
