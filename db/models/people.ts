import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: string;
  declare name: string;
  declare email: string;
  /** SCIM name parts as an identity provider sent them (or derived from `name` where none did); null: not sent. */
  declare given_name: CreationOptional<string | null>;
  declare family_name: CreationOptional<string | null>;
  declare formatted_name: CreationOptional<string | null>;
  declare is_active: boolean;
  declare created_at: Date;
  /** Set by writers; null for rows no writer has changed since they were made. */
  declare updated_at: CreationOptional<Date | null>;
}

/**
 * A user's e-mail addresses as an identity provider sent them, in its order. A user without rows has one:
 * `users.email`, a primary work address. Every address is one user's (a unique index), and each identifies
 * that user as a commit or pull-request author.
 */
export class UserEmail extends Model<InferAttributes<UserEmail>, InferCreationAttributes<UserEmail>> {
  declare user_id: string;
  declare position: number;
  /** Lower-cased, as `users.email`. */
  declare email: string;
  declare type: string | null;
  declare is_primary: boolean;
}

export class Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
  declare id: string;
  declare name: string;
  declare created_at: Date;
}

export type OrganizationRole = 'admin' | 'manager' | 'collaborator';
export const ORGANIZATION_ROLES: readonly OrganizationRole[] = ['admin', 'manager', 'collaborator'];

/**
 * A suspended member (SCIM `active: false`) keeps the membership row, its role and history, but counts as no
 * member anywhere: access, member lists, visibility. Team memberships carry their member's organization state.
 */
export type MembershipStatus = 'active' | 'suspended';
export const MEMBERSHIP_STATUSES: readonly MembershipStatus[] = ['active', 'suspended'];

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
  declare status: CreationOptional<MembershipStatus>;
  /** When the membership was last suspended; null while active. Writers set it with `status`. */
  declare suspended_at: CreationOptional<Date | null>;
  /** The identity provider's id for this user in this organization (SCIM `externalId`). */
  declare external_id: CreationOptional<string | null>;
  /** The member's job title in this organization (SCIM `title`). */
  declare title: CreationOptional<string | null>;
  declare created_at: Date;
  declare updated_at: CreationOptional<Date | null>;
  declare user_name: string;
  declare user_email: string;
  declare user_created_at: Date;
}

export class Team extends Model<InferAttributes<Team>, InferCreationAttributes<Team>> {
  declare id: string;
  declare organization_id: string;
  declare name: string;
  /** The identity provider's id for this team (SCIM Group `externalId`). */
  declare external_id: CreationOptional<string | null>;
  /**
   * Made or changed by the identity provider (SCIM): the settings page leaves it to the provider while the
   * organization has an active SCIM token (docs/settings.md#teams).
   */
  declare scim_managed: CreationOptional<boolean>;
  declare created_at: Date;
  declare updated_at: CreationOptional<Date | null>;
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
  declare status: CreationOptional<MembershipStatus>;
  /** Its member's organization membership's, as `status` is. */
  declare suspended_at: CreationOptional<Date | null>;
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

const STATUS = { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' };
const EXTERNAL_ID = { type: DataTypes.STRING(255), allowNull: true };

export function initPeople(sequelize: Sequelize): void {
  User.init(
    {
      id: { ...ID, primaryKey: true },
      name: { ...NAME },
      email: { type: DataTypes.STRING(254), allowNull: false, unique: true },
      given_name: { type: DataTypes.STRING(200), allowNull: true },
      family_name: { type: DataTypes.STRING(200), allowNull: true },
      formatted_name: { type: DataTypes.STRING(200), allowNull: true },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      created_at: { ...TIMESTAMP },
      updated_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'users', modelName: 'user' },
  );
  UserEmail.init(
    {
      user_id: { ...REF, primaryKey: true },
      position: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
      email: { type: DataTypes.STRING(254), allowNull: false },
      type: { type: DataTypes.STRING(40), allowNull: true },
      is_primary: { type: DataTypes.BOOLEAN, allowNull: false },
    },
    { sequelize, tableName: 'user_emails', modelName: 'user_email' },
  );
  Organization.init(
    { id: { ...ID, primaryKey: true }, name: { ...NAME }, created_at: { ...TIMESTAMP } },
    { sequelize, tableName: 'organizations', modelName: 'organization' },
  );
  OrganizationMembership.init(
    {
      organization_id: { ...REF, primaryKey: true },
      user_id: { ...REF, primaryKey: true },
      role: { ...SHORT },
      status: { ...STATUS },
      suspended_at: { ...OPTIONAL_TIMESTAMP },
      external_id: { ...EXTERNAL_ID },
      title: { type: DataTypes.STRING(200), allowNull: true },
      created_at: { ...TIMESTAMP },
      updated_at: { ...OPTIONAL_TIMESTAMP },
      ...memberSortFields(),
    },
    { sequelize, tableName: 'organization_memberships', modelName: 'organization_membership' },
  );
  Team.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      name: { ...NAME },
      external_id: { ...EXTERNAL_ID },
      scim_managed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      created_at: { ...TIMESTAMP },
      updated_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'teams', modelName: 'team' },
  );
  TeamMembership.init(
    {
      team_id: { ...REF, primaryKey: true },
      user_id: { ...REF, primaryKey: true },
      title: { ...NAME },
      role: { ...SHORT },
      status: { ...STATUS },
      suspended_at: { ...OPTIONAL_TIMESTAMP },
      created_at: { ...TIMESTAMP },
      ...memberSortFields(),
    },
    { sequelize, tableName: 'team_memberships', modelName: 'team_membership' },
  );
}
