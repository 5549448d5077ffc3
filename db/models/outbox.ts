import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { ID, REF, TIMESTAMP } from './types';

/**
 * One event of a change (docs/webhooks.md), written in the change's transaction. `id` is the event's identity for
 * receivers (the Standard Webhooks `webhook-id`); `seq` orders the events as they were committed.
 */
export class OutboxEvent extends Model<InferAttributes<OutboxEvent>, InferCreationAttributes<OutboxEvent>> {
  declare seq: CreationOptional<number>;
  declare id: string;
  declare organization_id: string;
  declare type: string;
  /** The event's `data`, as JSON text: the `/v1` item shapes. */
  declare data: string;
  declare created_at: Date;
}

export function initOutbox(sequelize: Sequelize): void {
  OutboxEvent.init(
    {
      seq: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
      id: { ...ID, unique: true },
      organization_id: { ...REF },
      type: { type: DataTypes.STRING(64), allowNull: false },
      data: { type: DataTypes.TEXT, allowNull: false },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'outbox_events', modelName: 'outbox_event' },
  );
}
