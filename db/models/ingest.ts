import { DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
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
}
