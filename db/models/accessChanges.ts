import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { REF, TIMESTAMP } from './types';

/**
 * A user whose access a committed change altered. Written in the change's transaction; every instance reads the
 * new rows each second and forgets that user's cached tokens (docs/api.md#tokens-limits-and-headers).
 */
export class AccessChange extends Model<InferAttributes<AccessChange>, InferCreationAttributes<AccessChange>> {
  /** BIGINT: a string from mysql2, a number from SQLite; only compared and ordered. */
  declare id: CreationOptional<number | string>;
  declare user_id: string;
  declare created_at: Date;
}

export function initAccessChanges(sequelize: Sequelize): void {
  AccessChange.init(
    {
      id: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
      user_id: { ...REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'access_changes', modelName: 'access_change' },
  );
}
