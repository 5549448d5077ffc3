import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';

export type AuthRecordKind = 'session' | 'sign_in';

/**
 * A signed-in browser's session, or a sign-in under way at the identity provider (docs/settings.md), kept here when Redis
 * is not configured. Only the SHA-256 of the cookie's value is stored; `data` is the record's JSON.
 */
export class AuthSession extends Model<InferAttributes<AuthSession>, InferCreationAttributes<AuthSession>> {
  declare id_hash: string;
  declare kind: AuthRecordKind;
  declare user_id: string | null;
  declare data: string;
  declare created_at: Date;
  declare expires_at: Date;
}

/** A one-time sign-in link (`npm run tokens -- login-link`): stored as its token's SHA-256, used at most once. */
export class LoginLink extends Model<InferAttributes<LoginLink>, InferCreationAttributes<LoginLink>> {
  declare token_hash: string;
  declare user_id: string;
  declare created_at: Date;
  declare expires_at: Date;
  declare used_at: Date | null;
}

export type AuditActorType = 'user' | 'operator';

/** One change to an organization's credentials or webhooks, written in the change's own transaction. */
export class AuditEntry extends Model<InferAttributes<AuditEntry>, InferCreationAttributes<AuditEntry>> {
  declare id: string;
  /** Null only for an organization's deletion, which outlives the organization (src/persistence/changes/auditRecord.ts). */
  declare organization_id: string | null;
  declare actor_type: AuditActorType;
  declare actor_user_id: string | null;
  declare action: string;
  declare target_type: string;
  declare target_id: string;
  /** JSON object: what changed, never a secret. */
  declare details: string;
  declare created_at: Date;
}

export function initSettings(sequelize: Sequelize): void {
  const hash = { type: DataTypes.CHAR(64), allowNull: false, primaryKey: true };
  AuthSession.init(
    {
      id_hash: { ...hash },
      kind: { ...SHORT },
      user_id: { ...OPTIONAL_REF },
      data: { type: DataTypes.TEXT, allowNull: false },
      created_at: { ...TIMESTAMP },
      expires_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'auth_sessions', modelName: 'auth_session' },
  );
  LoginLink.init(
    {
      token_hash: { ...hash },
      user_id: { ...REF },
      created_at: { ...TIMESTAMP },
      expires_at: { ...TIMESTAMP },
      used_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'login_links', modelName: 'login_link' },
  );
  AuditEntry.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...OPTIONAL_REF },
      actor_type: { ...SHORT },
      actor_user_id: { ...OPTIONAL_REF },
      action: { type: DataTypes.STRING(60), allowNull: false },
      target_type: { ...SHORT },
      target_id: { ...REF },
      details: { type: DataTypes.TEXT, allowNull: false },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'audit_log', modelName: 'audit_entry' },
  );
}
