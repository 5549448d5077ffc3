import { randomBytes } from 'node:crypto';
import { Op, Transaction } from 'sequelize';
import { ApiToken, ApiTokenOrganization, ApiTokenTeam, OrganizationMembership, Team } from '../../../db/models';
import { generateToken, hashToken, tokenPreview } from '../tokenFormat';
import { conditions } from '../../access/conditions';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import { changesOf, findUser, TokenInputError, TokenSummary } from './common';

export interface CreateTokenInput {
  /** User id or e-mail. */
  user: string;
  name?: string;
  expiresAt?: Date | null;
  organizationIds?: string[];
  teamIds?: string[];
  /** Who asks, for the audit log: an operator (the CLI) unless a signed-in user (settings). */
  actor?: Actor;
}

export interface CreatedToken {
  id: string;
  token: string;
  expires_at: string | null;
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
  const reach = organizationIds.length || teamIds.length ? [...new Set([...organizationIds, ...teams.map((t) => t.organization_id)])] : [...userOrgs];
  await changesOf().run(async ({ transaction, audit }) => {
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
    const details = { user_id: user.id, name: input.name ?? 'API token', expires_at: input.expiresAt?.toISOString() ?? null, organizations: organizationIds, teams: teamIds };
    for (const organizationId of reach) audit({ organizationId, actor: input.actor ?? OPERATOR, action: 'api_token.created', target: { type: 'api_token', id }, details });
  });
  return { id, token, expires_at: input.expiresAt ? input.expiresAt.toISOString() : null };
}

export async function listApiTokens(where: { user_id?: string }, order: [string, string][], now: Date): Promise<TokenSummary[]> {
  return apiTokenSummaries(await ApiToken.findAll({ where, order }), now);
}

export async function apiTokenSummaries(tokens: ApiToken[], now: Date, transaction?: Transaction): Promise<TokenSummary[]> {
  const ids = tokens.map((t) => t.id);
  const [orgs, teams] = await Promise.all([
    ApiTokenOrganization.findAll({ where: { token_id: { [Op.in]: ids } }, transaction }),
    ApiTokenTeam.findAll({ where: { token_id: { [Op.in]: ids } }, transaction }),
  ]);
  return tokens.map((t): TokenSummary => ({
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
}

/** The organizations an API token acts in: those its scope names, else all of its user's. Their admins see its changes. */
export async function apiTokenReach(token: ApiToken, transaction: Transaction): Promise<string[]> {
  const [orgs, teams] = await Promise.all([
    ApiTokenOrganization.findAll({ where: { token_id: token.id }, transaction }),
    ApiTokenTeam.findAll({ where: { token_id: token.id }, transaction }),
  ]);
  if (orgs.length || teams.length) {
    const teamOrgs = teams.length ? await Team.findAll({ where: { id: { [Op.in]: teams.map((t) => t.team_id) } }, attributes: ['organization_id'], transaction }) : [];
    return [...new Set([...orgs.map((o) => o.organization_id), ...teamOrgs.map((t) => t.organization_id)])];
  }
  const memberships = await OrganizationMembership.findAll({ where: { user_id: token.user_id, ...conditions.activeMembership }, attributes: ['organization_id'], transaction });
  return memberships.map((m) => m.organization_id);
}

/** `90d`, `12h`, `30m`, `10s` → a future date. */
export function parseDuration(text: string, now = new Date()): Date {
  const m = /^(\d+)([dhms])$/.exec(text);
  if (!m || Number(m[1]) <= 0) throw new TokenInputError(`Invalid duration '${text}'; use a positive number with d, h, m or s (e.g. 90d)`);
  const unit = m[2] === 'd' ? 86_400_000 : m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : 1_000;
  return new Date(now.getTime() + Number(m[1]) * unit);
}
