import { randomBytes } from 'node:crypto';
import { Op, Transaction } from 'sequelize';
import {
  ApiToken,
  ApiTokenOrganization,
  ApiTokenTeam,
  Organization,
  OrganizationMembership,
  OtlpToken,
  ScimToken,
  Team,
  User,
} from '../../db/models';
import { generateToken, hashesEqual, hashToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX, tokenPreview } from './tokenFormat';
import { conditions } from '../access/conditions';
import { DomainError, ErrorKind } from '../errors';
import { ChangeRunner } from '../persistence/changes/change';
import { Actor, OPERATOR } from '../services/audit/actor';

/** A token request that cannot be done as asked; `kind` is how a surface answers it (the CLI: exit code 1). */
export class TokenInputError extends DomainError {
  constructor(message: string, kind: ErrorKind = 'invalid') {
    super(kind, message);
    this.name = 'TokenInputError';
  }
}

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

async function findOrganization(id: string): Promise<Organization> {
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

/** Every token change goes through the database's one change runner, with its audit entries (DESIGN §10). */
const changesOf = () => ChangeRunner.for(ApiToken.sequelize!);

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

/**
 * A SCIM token acts for one organization's identity provider on `/scim/v2` only (DESIGN §10); like an API
 * token it is printed once and stored as its SHA-256 hash. Its id starts with `stok_`, which `revoke` reads.
 */
export async function createScimToken(
  input: { organizationId: string; name?: string; actor?: Actor },
  now = new Date(),
): Promise<{ id: string; token: string }> {
  const organization = await findOrganization(input.organizationId);
  const token = generateToken(SCIM_TOKEN_PREFIX);
  const id = `${SCIM_TOKEN_ID_PREFIX}${randomBytes(10).toString('hex')}`;
  const name = input.name ?? 'SCIM token';
  await changesOf().run(async ({ transaction, audit }) => {
    await ScimToken.create(
      { id, organization_id: organization.id, name, token_hash: hashToken(token), preview: tokenPreview(token), is_active: true, last_used_at: null, revoked_at: null, created_at: now },
      { transaction },
    );
    audit({ organizationId: organization.id, actor: input.actor ?? OPERATOR, action: 'scim_token.created', target: { type: 'scim_token', id }, details: { name } });
  });
  return { id, token };
}

const SCIM_TOKEN_ID_PREFIX = 'stok_';
const OTLP_TOKEN_ID_PREFIX = 'otk_';

/**
 * An active membership of an active user: who may be bound to an OTLP token, at creation and at every use. A user
 * deactivated everywhere stops sending, as their API tokens stop. `useMaster`: a removal must bite within the
 * authenticator's cache time, which a lagging replica would not promise.
 */
export async function isActiveMember(organizationId: string, userId: string, options: { useMaster?: boolean } = {}): Promise<boolean> {
  const where = { organization_id: organizationId, user_id: userId, ...conditions.activeMembership };
  const user = { model: User, as: 'user', where: { is_active: true }, attributes: [] };
  return (await OrganizationMembership.count({ where, include: [user], useMaster: options.useMaster ?? false })) > 0;
}

/** The bound user of an OTLP token: only an active member speaks for the organization (suspended ones do not). */
async function findOtlpUser(ref: string, organizationId: string): Promise<User> {
  const user = await findUser(ref);
  if (!(await isActiveMember(organizationId, user.id))) {
    throw new TokenInputError(`User ${user.id} is not an active member of organization '${organizationId}'`);
  }
  return user;
}

/**
 * An OTLP token sends one organization's telemetry to `/otlp` only (DESIGN §15); bound to a user, everything it
 * sends is that member's. Printed once and stored as its SHA-256 hash; its id starts with `otk_`, which `revoke` reads.
 */
export async function createOtlpToken(
  input: { organizationId: string; user?: string; name?: string; actor?: Actor },
  now = new Date(),
): Promise<{ id: string; token: string; user_id: string | null }> {
  const organization = await findOrganization(input.organizationId);
  const user = input.user === undefined ? null : await findOtlpUser(input.user, organization.id);
  const token = generateToken(OTLP_TOKEN_PREFIX);
  const id = `${OTLP_TOKEN_ID_PREFIX}${randomBytes(10).toString('hex')}`;
  const name = input.name ?? 'OTLP token';
  await changesOf().run(async ({ transaction, audit }) => {
    await OtlpToken.create(
      {
        id,
        organization_id: organization.id,
        user_id: user?.id ?? null,
        name,
        token_hash: hashToken(token),
        preview: tokenPreview(token),
        is_active: true,
        last_used_at: null,
        revoked_at: null,
        created_at: now,
      },
      { transaction },
    );
    audit({ organizationId: organization.id, actor: input.actor ?? OPERATOR, action: 'otlp_token.created', target: { type: 'otlp_token', id }, details: { name, user_id: user?.id ?? null } });
  });
  return { id, token, user_id: user?.id ?? null };
}

export type OtlpTokenCheck = { ok: true; id: string; userId: string | null } | { ok: false; refusal: string };

/**
 * Whether `token` may go into the organization's managed settings: only a token that `/otlp` would accept for
 * that organization. Looked up by its hash, so no other token is ever read or shown.
 */
export async function checkOtlpToken(token: string, organizationId: string): Promise<OtlpTokenCheck> {
  const hash = hashToken(token);
  const row = await OtlpToken.findOne({ where: { token_hash: hash } });
  if (!row || !hashesEqual(row.token_hash, hash)) return { ok: false, refusal: 'No OTLP token matches --token (create one with create-otlp)' };
  if (!row.is_active) return { ok: false, refusal: `--token is OTLP token ${row.id}, which has been revoked` };
  if (row.organization_id !== organizationId) {
    return { ok: false, refusal: `--token is OTLP token ${row.id} of another organization, not of '${organizationId}'` };
  }
  if (row.user_id && !(await isActiveMember(organizationId, row.user_id))) {
    return { ok: false, refusal: `--token is OTLP token ${row.id}, whose user ${row.user_id} is no longer an active member of '${organizationId}'` };
  }
  return { ok: true, id: row.id, userId: row.user_id };
}

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

async function listApiTokens(where: { user_id?: string }, order: [string, string][], now: Date): Promise<TokenSummary[]> {
  return apiTokenSummaries(await ApiToken.findAll({ where, order }), now);
}

async function apiTokenSummaries(tokens: ApiToken[], now: Date, transaction?: Transaction): Promise<TokenSummary[]> {
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

/** One organization's SCIM or OTLP tokens (settings), oldest first. */
export async function listOrganizationTokens(organizationId: string, kind: 'scim' | 'otlp'): Promise<TokenSummary[]> {
  const order: [string, string][] = [['created_at', 'ASC'], ['id', 'ASC']];
  const where = { organization_id: organizationId };
  if (kind === 'scim') return (await ScimToken.findAll({ where, order })).map((t) => organizationTokenSummary('scim', t, null));
  return (await OtlpToken.findAll({ where, order })).map((t) => organizationTokenSummary('otlp', t, t.user_id));
}

/** An organization's token (SCIM or OTLP): it has no expiry and no team scope. */
function organizationTokenSummary(kind: 'scim' | 'otlp', t: ScimToken | OtlpToken, userId: string | null): TokenSummary {
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

export type TokenKind = TokenSummary['kind'];

/** The kind of token an id names, by its prefix. */
export function tokenKindOf(id: string): TokenKind {
  if (id.startsWith(SCIM_TOKEN_ID_PREFIX)) return 'scim';
  if (id.startsWith(OTLP_TOKEN_ID_PREFIX)) return 'otlp';
  return 'api';
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

/** The organizations an API token acts in: those its scope names, else all of its user's. Their admins see its changes. */
async function apiTokenReach(token: ApiToken, transaction: Transaction): Promise<string[]> {
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
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 }[m[2] as 'd' | 'h' | 'm' | 's'];
  return new Date(now.getTime() + Number(m[1]) * unit);
}
