import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, REF, SHORT, TIMESTAMP } from './types';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: string;
  declare name: string;
  declare email: string;
  declare is_active: boolean;
  declare created_at: Date;
}

export class Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
  declare id: string;
  declare name: string;
  declare created_at: Date;
}

export type OrganizationRole = 'admin' | 'manager' | 'collaborator';

export class OrganizationMembership extends Model<
  InferAttributes<OrganizationMembership>,
  InferCreationAttributes<OrganizationMembership>
> {
  declare organization_id: string;
  declare user_id: string;
  declare role: OrganizationRole;
  declare created_at: Date;
}

export class Team extends Model<InferAttributes<Team>, InferCreationAttributes<Team>> {
  declare id: string;
  declare organization_id: string;
  declare name: string;
  declare created_at: Date;
}

export type TeamRole = 'member' | 'manager';

export class TeamMembership extends Model<InferAttributes<TeamMembership>, InferCreationAttributes<TeamMembership>> {
  declare team_id: string;
  declare user_id: string;
  declare title: string;
  declare role: TeamRole;
  declare created_at: Date;
}

export function initPeople(sequelize: Sequelize): void {
  User.init(
    {
      id: { ...ID, primaryKey: true },
      name: { ...NAME },
      email: { type: DataTypes.STRING(254), allowNull: false, unique: true },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'users', modelName: 'user' },
  );
  Organization.init(
    { id: { ...ID, primaryKey: true }, name: { ...NAME }, created_at: TIMESTAMP },
    { sequelize, tableName: 'organizations', modelName: 'organization' },
  );
  OrganizationMembership.init(
    {
      organization_id: { ...REF, primaryKey: true },
      user_id: { ...REF, primaryKey: true },
      role: { ...SHORT } as never,
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'organization_memberships', modelName: 'organization_membership' },
  );
  Team.init(
    { id: { ...ID, primaryKey: true }, organization_id: { ...REF }, name: { ...NAME }, created_at: TIMESTAMP },
    { sequelize, tableName: 'teams', modelName: 'team' },
  );
  TeamMembership.init(
    {
      team_id: { ...REF, primaryKey: true },
      user_id: { ...REF, primaryKey: true },
      title: { ...NAME },
      role: { ...SHORT } as never,
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'team_memberships', modelName: 'team_membership' },
  );
}
