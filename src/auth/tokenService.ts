import { randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { ApiToken, ApiTokenOrganization, ApiTokenTeam, OrganizationMembership, Team, User } from '../../db/models';
import { generateToken, hashToken, tokenPreview } from './tokenFormat';

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
  const memberships = await OrganizationMembership.findAll({ where: { user_id: user.id } });
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

export interface TokenSummary {
  id: string;
  user_id: string;
  name: string;
  preview: string;
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  organizations: string[];
  teams: string[];
}

export async function listTokens(userRef?: string, now = new Date()): Promise<TokenSummary[]> {
  const where = userRef ? { user_id: (await findUser(userRef)).id } : {};
  const tokens = await ApiToken.findAll({ where, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  const ids = tokens.map((t) => t.id);
  const [orgs, teams] = await Promise.all([
    ApiTokenOrganization.findAll({ where: { token_id: { [Op.in]: ids } } }),
    ApiTokenTeam.findAll({ where: { token_id: { [Op.in]: ids } } }),
  ]);
  return tokens.map((t) => ({
    id: t.id,
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
}

/** Revocation takes effect on every instance within the authenticator's cache time (5 s). */
export async function revokeToken(id: string, now = new Date()): Promise<void> {
  const token = await ApiToken.findByPk(id);
  if (!token) throw new TokenInputError(`No token with id '${id}'`);
  if (!token.is_active) return;
  await token.update({ is_active: false, revoked_at: now });
}

/** `90d`, `12h`, `30m`, `10s` → a future date. */
export function parseDuration(text: string, now = new Date()): Date {
  const m = /^(\d+)([dhms])$/.exec(text);
  if (!m || Number(m[1]) <= 0) throw new TokenInputError(`Invalid duration '${text}'; use a positive number with d, h, m or s (e.g. 90d)`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 }[m[2] as 'd' | 'h' | 'm' | 's'];
  return new Date(now.getTime() + Number(m[1]) * unit);
}
