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

/**
 * The member's user fields that member lists sort by, kept on every membership row so that each (scope, sort)
 * pair is one index range. Whoever writes a membership or changes a user's name or e-mail keeps them equal to
 * the user's, in the same transaction.
 */
interface MemberSortFields {
  user_name: string;
  user_email: string;
  user_created_at: Date;
}

export class OrganizationMembership extends Model<
  InferAttributes<OrganizationMembership>,
  InferCreationAttributes<OrganizationMembership>
> implements MemberSortFields {
  declare organization_id: string;
  declare user_id: string;
  declare role: OrganizationRole;
  declare created_at: Date;
  declare user_name: string;
  declare user_email: string;
  declare user_created_at: Date;
}

export class Team extends Model<InferAttributes<Team>, InferCreationAttributes<Team>> {
  declare id: string;
  declare organization_id: string;
  declare name: string;
  declare created_at: Date;
}

export type TeamRole = 'member' | 'manager';

export class TeamMembership
  extends Model<InferAttributes<TeamMembership>, InferCreationAttributes<TeamMembership>>
  implements MemberSortFields
{
  declare team_id: string;
  declare user_id: string;
  declare title: string;
  declare role: TeamRole;
  declare created_at: Date;
  declare user_name: string;
  declare user_email: string;
  declare user_created_at: Date;
}

// Sequelize would read `user_created_at` from the `created_at` column without the explicit field names.
const memberSortFields = () => ({
  user_name: { ...NAME, field: 'user_name' },
  user_email: { type: DataTypes.STRING(254), allowNull: false, field: 'user_email' },
  user_created_at: { type: DataTypes.DATE(3), allowNull: false, field: 'user_created_at' },
});

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
      ...memberSortFields(),
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
      ...memberSortFields(),
    },
    { sequelize, tableName: 'team_memberships', modelName: 'team_membership' },
  );
}
