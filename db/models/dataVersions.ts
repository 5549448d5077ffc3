import { DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';

/** How often a table has been changed through the service; a table with no row has version 0. */
export class DataVersion extends Model<InferAttributes<DataVersion>, InferCreationAttributes<DataVersion>> {
  declare name: string;
  declare version: number;
}

export function initDataVersions(sequelize: Sequelize): void {
  DataVersion.init(
    {
      name: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
      // BIGINT arrives as a string from mysql2; a version is only ever compared, never added to here.
      version: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    },
    { sequelize, tableName: 'data_versions', modelName: 'data_version' },
  );
}
