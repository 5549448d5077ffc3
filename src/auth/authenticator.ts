import { Op } from 'sequelize';
import { unauthenticated } from '../errors';
import { effectiveAccess, Principal } from '../access/principal';
import { conditions } from '../access/conditions';
import {
  ApiToken,
  ApiTokenOrganization,
  ApiTokenTeam,
  OrganizationMembership,
  Team,
  TeamMembership,
  User,
} from '../../db/models';
import { hashesEqual, hashToken, isWellFormedToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX } from './tokenFormat';
import { LastUsedRecorder } from './lastUsed';
import { included } from '../persistence/query/included';

const unauthorized = unauthenticated;

/**
 * Every lookup behind a principal reads the primary (`useMaster`; without read replicas it changes nothing). A
 * replica may lag by any amount, and revocation, deactivation and scope changes must take effect within the
 * cache TTL (5 s), which only holds when the rows come from where they are written.
 */
const PRIMARY = { useMaster: true } as const;

interface CachedToken {
  hash: string;
  expiresAt: Date | null;
  principal: Principal;
  cachedUntil: number;
}

export interface AuthenticatorOptions {
  /** Revocation, deactivation and scope changes take effect within this time (docs/api.md#tokens-limits-and-headers: at most 5 s). */
  cacheTtlMs: number;
  /** last_used_at is written at most once per this interval per token. */
  lastUsedIntervalMs: number;
  onBackgroundError: (err: unknown) => void;
  /** Called before the first authentication (the runtime starts the access change feed then: the schema exists). */
  onFirstUse?: () => void;
}

export class Authenticator {
  private readonly cache = new Map<string, CachedToken>();
  private readonly lastUsed: LastUsedRecorder;
  /**
   * A principal loaded while its user's access changed may have been read before the change committed: the
   * forget count at each user's last forgetting tells a load that it raced one, and it loads again.
   */
  private forgets = 0;
  private readonly forgottenAt = new Map<string, number>();
  private loadsInFlight = 0;
  private allForgottenAt = 0;

  constructor(private readonly options: AuthenticatorOptions) {
    this.options = { ...options };
    this.lastUsed = new LastUsedRecorder(ApiToken, options.lastUsedIntervalMs, options.onBackgroundError);
  }

  /** Resolves the Authorization header to a principal, or throws 401 with a message saying what to fix. */
  async authenticate(header: string | undefined, now = new Date()): Promise<Principal> {
    if (this.options.onFirstUse) {
      this.options.onFirstUse();
      this.options.onFirstUse = undefined;
    }
    if (!header) throw unauthorized("Missing Authorization header; send 'Authorization: Bearer <API token>'");
    if (/^bearer\s*$/i.test(header)) throw unauthorized("Authorization header has no token after 'Bearer'");
    const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
    if (!match || match[1].toLowerCase() !== 'bearer') {
      throw unauthorized("Authorization header must use the Bearer scheme: 'Authorization: Bearer <API token>'");
    }
    const token = match[2];
    if (!isWellFormedToken(token)) {
      if (isWellFormedToken(token, SCIM_TOKEN_PREFIX)) {
        throw unauthorized('This is a SCIM token, accepted on /scim/v2 only; send an API token (npm run tokens -- create)');
      }
      if (isWellFormedToken(token, OTLP_TOKEN_PREFIX)) {
        throw unauthorized('This is an OTLP token, accepted on /otlp only; send an API token (npm run tokens -- create)');
      }
      throw unauthorized('Malformed API token');
    }

    const hash = hashToken(token);
    let entry = this.cache.get(hash);
    if (!entry || entry.cachedUntil <= now.getTime()) {
      entry = await this.loadAfterChanges(hash, now);
      this.remember(hash, entry);
    }
    if (entry.expiresAt && entry.expiresAt.getTime() <= now.getTime()) throw unauthorized('API token has expired');
    this.lastUsed.record(entry.principal.tokenId, now);
    return entry.principal;
  }

  /** Drops the cached principals of these users: a change of their access applies from the next request on. */
  forgetUsers(userIds: readonly string[]): void {
    if (userIds.length === 0) return;
    const users = new Set(userIds);
    this.forgets++;
    if (this.loadsInFlight > 0) for (const id of users) this.forgottenAt.set(id, this.forgets);
    for (const [hash, entry] of this.cache) if (users.has(entry.principal.userId)) this.cache.delete(hash);
  }

  /** Drops every cached principal (more access changes at once than are worth naming). */
  forgetAll(): void {
    this.allForgottenAt = ++this.forgets;
    this.cache.clear();
  }

  private async loadAfterChanges(hash: string, now: Date): Promise<CachedToken> {
    this.loadsInFlight++;
    try {
      for (let attempt = 1; ; attempt++) {
        const startedAt = this.forgets;
        const entry = await this.load(hash, now);
        const raced = this.allForgottenAt > startedAt || (this.forgottenAt.get(entry.principal.userId) ?? 0) > startedAt;
        if (!raced || attempt === 3) return entry;
      }
    } finally {
      if (--this.loadsInFlight === 0) this.forgottenAt.clear();
    }
  }

  private async load(hash: string, now: Date): Promise<CachedToken> {
    const token = await ApiToken.findOne({ where: { token_hash: hash }, ...PRIMARY });
    // The lookup is by hash; the comparison below keeps any later refactor from comparing secrets naively.
    if (!token || !hashesEqual(token.token_hash, hash)) throw unauthorized('Invalid API token');
    if (!token.is_active) throw unauthorized('API token has been revoked');
    if (token.expires_at && token.expires_at.getTime() <= now.getTime()) throw unauthorized('API token has expired');

    const [user, scopeOrgs, scopeTeams, orgMemberships, teamMemberships] = await Promise.all([
      User.findByPk(token.user_id, { attributes: ['id', 'is_active'], ...PRIMARY }),
      ApiTokenOrganization.findAll({ where: { token_id: token.id }, ...PRIMARY }),
      ApiTokenTeam.findAll({ where: { token_id: token.id }, ...PRIMARY }),
      OrganizationMembership.findAll({ where: { user_id: token.user_id, ...conditions.activeMembership }, ...PRIMARY }),
      TeamMembership.findAll({
        where: { user_id: token.user_id, ...conditions.activeMembership },
        include: [{ model: Team, as: 'team', attributes: ['organization_id'], required: true }],
        ...PRIMARY,
      }),
    ]);
    if (!user || !user.is_active) throw unauthorized("API token's user is deactivated");

    const teamIds = scopeTeams.map((t) => t.team_id);
    const scopedTeams = teamIds.length
      ? await Team.findAll({ where: { id: { [Op.in]: teamIds } }, attributes: ['id', 'organization_id'], ...PRIMARY })
      : [];
    const principal = effectiveAccess(
      token.user_id,
      token.id,
      { organizationIds: scopeOrgs.map((o) => o.organization_id), teamIds },
      {
        organizations: orgMemberships.map((m) => ({ organizationId: m.organization_id, role: m.role })),
        teams: teamMemberships.map((m) => ({
          teamId: m.team_id,
          organizationId: included(m, 'team', Team).organization_id,
          role: m.role,
        })),
        scopedTeamOrganizations: new Map(scopedTeams.map((t) => [t.id, t.organization_id])),
      },
    );
    return { hash, expiresAt: token.expires_at, principal, cachedUntil: now.getTime() + this.options.cacheTtlMs };
  }

  private remember(hash: string, entry: CachedToken): void {
    if (this.options.cacheTtlMs <= 0) return;
    const oldest = this.cache.keys().next();
    if (this.cache.size >= 10_000 && !oldest.done) this.cache.delete(oldest.value);
    this.cache.set(hash, entry);
  }
}
