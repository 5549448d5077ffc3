import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { ID, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, TIMESTAMP } from './types';

/** An organization's subscription to outgoing webhooks (docs/webhooks.md). */
export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
  declare id: string;
  declare organization_id: string;
  declare url: string;
  /** JSON array of event types; null for every event. */
  declare event_types: string | null;
  declare is_active: boolean;
  /** Why it stopped receiving, in words: an operator's `disable`, a 410 answer, or five days of failures. */
  declare disabled_reason: CreationOptional<string | null>;
  /** The `whsec_` signing secret, sealed with SECRETS_KEY. */
  declare secret: string;
  declare previous_secret: CreationOptional<string | null>;
  declare previous_secret_expires_at: CreationOptional<Date | null>;
  declare failing_since: CreationOptional<Date | null>;
  declare lease_until: CreationOptional<Date | null>;
  declare leased_by: CreationOptional<string | null>;
  declare created_at: Date;
  declare updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event for one endpoint: pending until a 2xx, or failed once the retries are spent or the endpoint answers 410. */
export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
  declare id: string;
  declare endpoint_id: string;
  declare organization_id: string;
  declare event_seq: number;
  declare event_id: string;
  declare event_type: string;
  declare status: DeliveryStatus;
  declare attempts: CreationOptional<number>;
  declare next_attempt_at: Date | null;
  declare replay_of: CreationOptional<string | null>;
  declare created_at: Date;
  declare updated_at: Date;
}

/** One POST to an endpoint and how it ended. */
export class WebhookAttempt extends Model<InferAttributes<WebhookAttempt>, InferCreationAttributes<WebhookAttempt>> {
  declare id: CreationOptional<number>;
  declare delivery_id: string;
  declare endpoint_id: string;
  declare attempted_at: Date;
  declare duration_ms: number;
  declare status_code: number | null;
  declare error: string | null;
  declare response_excerpt: string | null;
}

export function initWebhooks(sequelize: Sequelize): void {
  WebhookEndpoint.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      url: { type: DataTypes.STRING(2048), allowNull: false },
      event_types: { type: DataTypes.TEXT, allowNull: true },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false },
      disabled_reason: { type: DataTypes.STRING(300), allowNull: true },
      secret: { type: DataTypes.TEXT, allowNull: false },
      previous_secret: { type: DataTypes.TEXT, allowNull: true },
      previous_secret_expires_at: { ...OPTIONAL_TIMESTAMP },
      failing_since: { ...OPTIONAL_TIMESTAMP },
      lease_until: { ...OPTIONAL_TIMESTAMP },
      leased_by: { type: DataTypes.STRING(100), allowNull: true },
      created_at: { ...TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'webhook_endpoints', modelName: 'webhook_endpoint' },
  );
  WebhookDelivery.init(
    {
      id: { ...ID, primaryKey: true },
      endpoint_id: { ...REF },
      organization_id: { ...REF },
      event_seq: { type: DataTypes.BIGINT, allowNull: false },
      event_id: { ...REF },
      event_type: { type: DataTypes.STRING(64), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      next_attempt_at: { ...OPTIONAL_TIMESTAMP },
      replay_of: { ...OPTIONAL_REF },
      created_at: { ...TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'webhook_deliveries', modelName: 'webhook_delivery' },
  );
  WebhookAttempt.init(
    {
      id: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
      delivery_id: { ...REF },
      endpoint_id: { ...REF },
      attempted_at: { ...TIMESTAMP },
      duration_ms: { type: DataTypes.INTEGER, allowNull: false },
      status_code: { type: DataTypes.INTEGER, allowNull: true },
      error: { type: DataTypes.STRING(300), allowNull: true },
      response_excerpt: { type: DataTypes.STRING(1024), allowNull: true },
    },
    { sequelize, tableName: 'webhook_attempts', modelName: 'webhook_attempt' },
  );
}
