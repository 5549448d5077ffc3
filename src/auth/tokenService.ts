import { randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { ApiToken, ApiTokenOrganization, ApiTokenTeam, Organization, OrganizationMembership, ScimToken, Team, User } from '../../db/models';
import { generateToken, hashToken, SCIM_TOKEN_PREFIX, tokenPreview } from './tokenFormat';
import { conditions } from '../access/conditions';

export class TokenInputError extends Error {}

export interface CreateTokenInput {
  /** User id or e-mail. */
  user: string;
  name?: string;
  expiresAt?: Date | null;
  organizationIds?: string[];
  teamIds?: string[];
}

export interface CreatedToken {
  id: string;
  token: string;
  expires_at: string | null;
}

async function findUser(ref: string): Promise<User> {
  const user = await User.findOne({ where: ref.includes('@') ? { email: ref } : { id: ref } });
  if (!user) throw new TokenInputError(`No user with ${ref.includes('@') ? 'e-mail' : 'id'} '${ref}'`);
  return user;
}

/** Creates a token; the plain value is returned once and only its SHA-256 hash is stored. */
export async function createToken(input: CreateTokenInput, now = new Date()): Promise<CreatedToken> {
  const user = await findUser(input.user);
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw new TokenInputError('The expiry must be in the future');
  const organizationIds = [...new Set(input.organizationIds ?? [])];
  const teamIds = [...new Set(input.teamIds ?? [])];
  // A scope can only narrow what the user has: every named organization and team must be one of theirs.
  const memberships = await OrganizationMembership.findAll({ where: { user_id: user.id, ...conditions.activeMembership } });
  const userOrgs = new Set(memberships.map((m) => m.organization_id));
  for (const o of organizationIds) {
    if (!userOrgs.has(o)) throw new TokenInputError(`User ${user.id} is not a member of organization '${o}'`);
  }
  const teams = teamIds.length ? await Team.findAll({ where: { id: { [Op.in]: teamIds } } }) : [];
  for (const t of teamIds) {
    const team = teams.find((x) => x.id === t);
    if (!team) throw new TokenInputError(`No team with id '${t}'`);
    if (!userOrgs.has(team.organization_id)) throw new TokenInputError(`User ${user.id} is not in the organization of team '${t}'`);
  }

  const token = generateToken();
  const id = `tok_${randomBytes(10).toString('hex')}`;
  const sequelize = ApiToken.sequelize!;
  await sequelize.transaction(async (transaction) => {
    await ApiToken.create(
      {
        id,
        user_id: user.id,
        name: input.name ?? 'API token',
        token_hash: hashToken(token),
        preview: tokenPreview(token),
        is_active: true,
        expires_at: input.expiresAt ?? null,
        last_used_at: null,
        revoked_at: null,
        created_at: now,
      },
      { transaction },
    );
    if (organizationIds.length) {
      await ApiTokenOrganization.bulkCreate(organizationIds.map((organization_id) => ({ token_id: id, organization_id })), { transaction });
    }
    if (teamIds.length) await ApiTokenTeam.bulkCreate(teamIds.map((team_id) => ({ token_id: id, team_id })), { transaction });
  });
  return { id, token, expires_at: input.expiresAt ? input.expiresAt.toISOString() : null };
}

/**
 * A SCIM token acts for one organization's identity provider on `/scim/v2` only (DESIGN §10); like an API
 * token it is printed once and stored as its SHA-256 hash. Its id starts with `stok_`, which `revoke` reads.
 */
export async function createScimToken(input: { organizationId: string; name?: string }, now = new Date()): Promise<{ id: string; token: string }> {
  const organization = await Organization.findByPk(input.organizationId);
  if (!organization) throw new TokenInputError(`No organization with id '${input.organizationId}'`);
  const token = generateToken(SCIM_TOKEN_PREFIX);
  const id = `${SCIM_TOKEN_ID_PREFIX}${randomBytes(10).toString('hex')}`;
  await ScimToken.create({
    id,
    organization_id: organization.id,
    name: input.name ?? 'SCIM token',
    token_hash: hashToken(token),
    preview: tokenPreview(token),
    is_active: true,
    last_used_at: null,
    revoked_at: null,
    created_at: now,
  });
  return { id, token };
}

const SCIM_TOKEN_ID_PREFIX = 'stok_';

export interface TokenSummary {
  id: string;
  /** `scim` tokens belong to an organization (listed under `organizations`), not to a user. */
  kind: 'api' | 'scim';
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

/** API tokens (all, or one user's) and, without a user, SCIM tokens too; oldest first. */
export async function listTokens(userRef?: string, now = new Date()): Promise<TokenSummary[]> {
  const where = userRef ? { user_id: (await findUser(userRef)).id } : {};
  const order: [string, string][] = [['created_at', 'ASC'], ['id', 'ASC']];
  const [tokens, scimTokens] = await Promise.all([ApiToken.findAll({ where, order }), userRef ? [] : ScimToken.findAll({ order })]);
  const ids = tokens.map((t) => t.id);
  const [orgs, teams] = await Promise.all([
    ApiTokenOrganization.findAll({ where: { token_id: { [Op.in]: ids } } }),
    ApiTokenTeam.findAll({ where: { token_id: { [Op.in]: ids } } }),
  ]);
  const apiTokens = tokens.map((t): TokenSummary => ({
    id: t.id,
    kind: 'api',
    user_id: t.user_id,
    name: t.name,
    preview: t.preview,
    status: !t.is_active ? 'revoked' : t.expires_at && t.expires_at <= now ? 'expired' : 'active',
    expires_at: t.expires_at?.toISOString() ?? null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
    created_at: t.created_at.toISOString(),
    organizations: orgs.filter((o) => o.token_id === t.id).map((o) => o.organization_id),
    teams: teams.filter((o) => o.token_id === t.id).map((o) => o.team_id),
  }));
  const scim = scimTokens.map((t): TokenSummary => ({
    id: t.id,
    kind: 'scim',
    user_id: null,
    name: t.name,
    preview: t.preview,
    status: t.is_active ? 'active' : 'revoked',
    expires_at: null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
    created_at: t.created_at.toISOString(),
    organizations: [t.organization_id],
    teams: [],
  }));
  return [...apiTokens, ...scim].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** Whether the token (API or SCIM) exists and is revoked; undefined when there is no such token. */
export async function isRevoked(id: string): Promise<boolean | undefined> {
  const token = id.startsWith(SCIM_TOKEN_ID_PREFIX) ? await ScimToken.findByPk(id) : await ApiToken.findByPk(id);
  return token ? !token.is_active : undefined;
}

/** Revocation takes effect on every instance within the authenticator's cache time (5 s). */
export async function revokeToken(id: string, now = new Date()): Promise<void> {
  const token = id.startsWith(SCIM_TOKEN_ID_PREFIX) ? await ScimToken.findByPk(id) : await ApiToken.findByPk(id);
  if (!token) throw new TokenInputError(`No token with id '${id}'`);
  if (!token.is_active) return;
  await (token as ApiToken).update({ is_active: false, revoked_at: now });
}

/** `90d`, `12h`, `30m`, `10s` → a future date. */
export function parseDuration(text: string, now = new Date()): Date {
  const m = /^(\d+)([dhms])$/.exec(text);
  if (!m || Number(m[1]) <= 0) throw new TokenInputError(`Invalid duration '${text}'; use a positive number with d, h, m or s (e.g. 90d)`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 }[m[2] as 'd' | 'h' | 'm' | 's'];
  return new Date(now.getTime() + Number(m[1]) * unit);
}
