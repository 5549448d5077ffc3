import { Transaction } from 'sequelize';
import { ApiToken, OtlpToken, ScimToken } from '../../../db/models';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import { apiTokenReach, apiTokenSummaries, listApiTokens } from './apiTokens';
import { changesOf, findUser, organizationTokenSummary, TokenInputError, tokenKindOf, TokenSummary } from './common';

/** Tokens of every kind, listed together, and revoked by an id whose prefix says the kind. */

/**
 * API tokens and OTLP tokens (all, or those of one user) and, without a user, SCIM tokens too; oldest first.
 */
export async function listTokens(userRef?: string, now = new Date()): Promise<TokenSummary[]> {
  const where = userRef ? { user_id: (await findUser(userRef)).id } : {};
  const order: [string, string][] = [['created_at', 'ASC'], ['id', 'ASC']];
  const [apiTokens, scimTokens, otlpTokens] = await Promise.all([
    listApiTokens(where, order, now),
    userRef ? [] : ScimToken.findAll({ order }),
    OtlpToken.findAll({ where, order }),
  ]);
  const organizationTokens = [
    ...scimTokens.map((t) => organizationTokenSummary('scim', t, null)),
    ...otlpTokens.map((t) => organizationTokenSummary('otlp', t, t.user_id)),
  ];
  return [...apiTokens, ...organizationTokens].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** One organization's SCIM or OTLP tokens (settings), oldest first. */
export async function listOrganizationTokens(organizationId: string, kind: 'scim' | 'otlp'): Promise<TokenSummary[]> {
  const order: [string, string][] = [['created_at', 'ASC'], ['id', 'ASC']];
  const where = { organization_id: organizationId };
  if (kind === 'scim') return (await ScimToken.findAll({ where, order })).map((t) => organizationTokenSummary('scim', t, null));
  return (await OtlpToken.findAll({ where, order })).map((t) => organizationTokenSummary('otlp', t, t.user_id));
}

/** The token an id names, of whichever kind its prefix says. */
function findTokenById(id: string, options: { transaction?: Transaction } = {}): Promise<ApiToken | ScimToken | OtlpToken | null> {
  const kind = tokenKindOf(id);
  if (kind === 'scim') return ScimToken.findByPk(id, options);
  if (kind === 'otlp') return OtlpToken.findByPk(id, options);
  return ApiToken.findByPk(id, options);
}

/** Whether the token (API, SCIM or OTLP) exists and is revoked; undefined when there is no such token. */
export async function isRevoked(id: string): Promise<boolean | undefined> {
  const token = await findTokenById(id);
  return token ? !token.is_active : undefined;
}

export interface RevokeOptions {
  now?: Date;
  actor?: Actor;
  /**
   * Where the caller may revoke (settings): a user their own API tokens, an admin an organization's SCIM or OTLP
   * tokens. Any other token is "not found", so an id of someone else's token tells nothing. The CLI has no bound.
   */
  within?: { userId: string } | { organizationId: string; kind: 'scim' | 'otlp' };
}

/** Revocation takes effect on every instance within the authenticators' cache time (5 s). */
export async function revokeToken(id: string, options: RevokeOptions = {}): Promise<TokenSummary> {
  const now = options.now ?? new Date();
  return changesOf().run(async ({ transaction, audit }) => {
    const token = await findTokenById(id, { transaction });
    if (!token || !isWithin(token, options.within)) throw new TokenInputError(`No token with id '${id}'`, 'not_found');
    const kind = tokenKindOf(id);
    if (token.is_active) {
      // Assigned then saved: the three kinds' `update` signatures cannot be called through their union.
      token.is_active = false;
      token.revoked_at = now;
      await token.save({ transaction });
      const organizations = token instanceof ApiToken ? await apiTokenReach(token, transaction) : [token.organization_id];
      for (const organizationId of organizations) {
        audit({ organizationId, actor: options.actor ?? OPERATOR, action: `${kind}_token.revoked`, target: { type: `${kind}_token`, id }, details: { name: token.name } });
      }
    }
    if (token instanceof ApiToken) return (await apiTokenSummaries([token], now, transaction))[0];
    return organizationTokenSummary(kind === 'scim' ? 'scim' : 'otlp', token, token instanceof OtlpToken ? token.user_id : null);
  });
}

function isWithin(token: ApiToken | ScimToken | OtlpToken, within: RevokeOptions['within']): boolean {
  if (!within) return true;
  if ('userId' in within) return token instanceof ApiToken && token.user_id === within.userId;
  const ofKind = within.kind === 'scim' ? token instanceof ScimToken : token instanceof OtlpToken;
  return ofKind && !(token instanceof ApiToken) && token.organization_id === within.organizationId;
}

