import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_TIMESTAMP, REF, TIMESTAMP } from './types';

/** Only the SHA-256 hash of a token is stored; `preview` lets a person recognise it in `tokens list`. */
export class ApiToken extends Model<InferAttributes<ApiToken>, InferCreationAttributes<ApiToken>> {
  declare id: string;
  declare user_id: string;
  declare name: string;
  declare token_hash: string;
  declare preview: string;
  declare is_active: boolean;
  declare expires_at: Date | null;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare created_at: Date;
}

/** A row here narrows the token to that organization; a token without scope rows acts for all of its user's. */
export class ApiTokenOrganization extends Model<
  InferAttributes<ApiTokenOrganization>,
  InferCreationAttributes<ApiTokenOrganization>
> {
  declare token_id: string;
  declare organization_id: string;
}

export class ApiTokenTeam extends Model<InferAttributes<ApiTokenTeam>, InferCreationAttributes<ApiTokenTeam>> {
  declare token_id: string;
  declare team_id: string;
}

/** A SCIM token acts for one organization's identity provider on `/scim/v2` only; hashed like API tokens. */
export class ScimToken extends Model<InferAttributes<ScimToken>, InferCreationAttributes<ScimToken>> {
  declare id: string;
  declare organization_id: string;
  declare name: string;
  declare token_hash: string;
  declare preview: string;
  declare is_active: boolean;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare created_at: Date;
}

export function initTokens(sequelize: Sequelize): void {
  ApiToken.init(
    {
      id: { ...ID, primaryKey: true },
      user_id: { ...REF },
      name: { ...NAME },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false, unique: true },
      preview: { type: DataTypes.STRING(40), allowNull: false },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      expires_at: { ...OPTIONAL_TIMESTAMP },
      last_used_at: { ...OPTIONAL_TIMESTAMP },
      revoked_at: { ...OPTIONAL_TIMESTAMP },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'api_tokens', modelName: 'api_token' },
  );
  ApiTokenOrganization.init(
    { token_id: { ...REF, primaryKey: true }, organization_id: { ...REF, primaryKey: true } },
    { sequelize, tableName: 'api_token_organizations', modelName: 'api_token_organization' },
  );
  ApiTokenTeam.init(
    { token_id: { ...REF, primaryKey: true }, team_id: { ...REF, primaryKey: true } },
    { sequelize, tableName: 'api_token_teams', modelName: 'api_token_team' },
  );
  ScimToken.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      name: { ...NAME },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false, unique: true },
      preview: { type: DataTypes.STRING(40), allowNull: false },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      last_used_at: { ...OPTIONAL_TIMESTAMP },
      revoked_at: { ...OPTIONAL_TIMESTAMP },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'scim_tokens', modelName: 'scim_token' },
  );
}
