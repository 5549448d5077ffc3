import { DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { REF, TIMESTAMP } from './types';

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
}
