import { Organization, OtlpToken, ScimToken, User } from '../../../db/models';
import { DomainError, ErrorKind } from '../../errors';
import { ChangeRunner } from '../../persistence/changes/change';

/**
 * What every kind of token shares: the refusal they throw, how a request names a user or an organization, the one
 * change runner their changes go through, the summary they are listed as, and the id prefixes that say a token's kind.
 */

/** A token request that cannot be done as asked; `kind` is how a surface answers it (the CLI: exit code 1). */
export class TokenInputError extends DomainError {
  constructor(message: string, kind: ErrorKind = 'invalid') {
    super(kind, message);
    this.name = 'TokenInputError';
  }
}

export async function findOrganization(id: string): Promise<Organization> {
  const organization = await Organization.findByPk(id);
  if (!organization) throw new TokenInputError(`No organization with id '${id}'`);
  return organization;
}

/** A user by id or e-mail, or a refusal naming what was not found. */
export async function findUser(ref: string): Promise<User> {
  const user = await User.findOne({ where: ref.includes('@') ? { email: ref } : { id: ref } });
  if (!user) throw new TokenInputError(`No user with ${ref.includes('@') ? 'e-mail' : 'id'} '${ref}'`);
  return user;
}

/** Every token change goes through the database's one change runner, with its audit entries (docs/architecture.md#writers). */
export const changesOf = () => ChangeRunner.for(Organization.sequelize!);

export const SCIM_TOKEN_ID_PREFIX = 'stok_';
export const OTLP_TOKEN_ID_PREFIX = 'otk_';

export interface TokenSummary {
  id: string;
  /**
   * `scim` and `otlp` tokens belong to an organization (listed under `organizations`); an `otlp` token may be
   * bound to a user too (`user_id`).
   */
  kind: 'api' | 'scim' | 'otlp';
  user_id: string | null;
  name: string;
  preview: string;
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  organizations: string[];
  teams: string[];
}

export type TokenKind = TokenSummary['kind'];

/** The kind of token an id names, by its prefix. */
export function tokenKindOf(id: string): TokenKind {
  if (id.startsWith(SCIM_TOKEN_ID_PREFIX)) return 'scim';
  if (id.startsWith(OTLP_TOKEN_ID_PREFIX)) return 'otlp';
  return 'api';
}

/** An organization's token (SCIM or OTLP): it has no expiry and no team scope. */
export function organizationTokenSummary(kind: 'scim' | 'otlp', t: ScimToken | OtlpToken, userId: string | null): TokenSummary {
  return {
    id: t.id,
    kind,
    user_id: userId,
    name: t.name,
    preview: t.preview,
    status: t.is_active ? 'active' : 'revoked',
    expires_at: null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
    created_at: t.created_at.toISOString(),
    organizations: [t.organization_id],
    teams: [],
  };
}

