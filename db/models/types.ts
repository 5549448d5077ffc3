import { DataTypes } from 'sequelize';

// Sequelize writes into attribute definitions it is given; spread these, never share the objects.

/** Column types shared by the models so that ids and timestamps are the same everywhere. */
export const ID = { type: DataTypes.STRING(40), allowNull: false };
export const REF = { type: DataTypes.STRING(40), allowNull: false };
export const OPTIONAL_REF = { type: DataTypes.STRING(40), allowNull: true };
export const TIMESTAMP = { type: DataTypes.DATE(3), allowNull: false };
export const OPTIONAL_TIMESTAMP = { type: DataTypes.DATE(3), allowNull: true };
export const NAME = { type: DataTypes.STRING(200), allowNull: false };
export const SHORT = { type: DataTypes.STRING(40), allowNull: false };
