import { Op } from 'sequelize';
import { OrganizationMembership, Team, TeamMembership, User } from '../../db/models';
import { effectiveAccess, Principal } from '../access/principal';
import { conditions } from '../access/conditions';
import { unauthenticated } from '../errors';
import { included } from '../persistence/query/included';
import type { Session, Sessions } from './sessions';

/** The principal id of every session: nothing a session does is recorded against an API token. */
export const SESSION_TOKEN_ID = 'session';

const SIGN_IN_AGAIN = 'Sign in again at /auth/login';

/** A suspension this recent ends its user's sessions when an access change reports it. */
const FRESH_SUSPENSION_MS = 60_000;

/**
 * Turns a session cookie into the signed-in user's principal: every organization and team they are an active member
 * of (a session has no token scope). Read from the primary on every call, so a deactivation, a suspension or a role
 * change applies to the very next request; settings traffic is a person's clicks, not an API client's.
 */
export class SessionAuthenticator {
  constructor(private readonly sessions: Sessions, private readonly clock: () => Date = () => new Date()) {}

  async authenticate(cookieId: string | undefined): Promise<{ session: Session; principal: Principal }> {
    if (!cookieId) throw unauthenticated(`Not signed in. ${SIGN_IN_AGAIN}`);
    const session = await this.sessions.resume(cookieId);
    if (!session) throw unauthenticated(`Your session has ended. ${SIGN_IN_AGAIN}`);
    const [user, memberships] = await Promise.all([
      User.findByPk(session.userId, { attributes: ['id', 'is_active'], useMaster: true }),
      OrganizationMembership.findAll({ where: { user_id: session.userId }, attributes: ['organization_id', 'role', 'status', 'suspended_at'], useMaster: true }),
    ]);
    // Suspended after signing in: the session ends (docs/settings.md). One suspended before it began only leaves that organization out.
    const suspendedSince = memberships.some((m) => m.status === 'suspended' && m.suspended_at !== null && m.suspended_at >= session.createdAt);
    const active = memberships.filter((m) => m.status === 'active');
    if (!user?.is_active || suspendedSince || active.length === 0) {
      await this.sessions.end(cookieId);
      throw unauthenticated(`Your session has ended: your account was deactivated or suspended. ${SIGN_IN_AGAIN}`);
    }
    const teams = await TeamMembership.findAll({
      where: { user_id: session.userId, ...conditions.activeMembership },
      include: [{ model: Team, as: 'team', attributes: ['organization_id'], required: true }],
      useMaster: true,
    });
    const principal = effectiveAccess(session.userId, SESSION_TOKEN_ID, { organizationIds: [], teamIds: [] }, {
      organizations: active.map((m) => ({ organizationId: m.organization_id, role: m.role })),
      teams: teams.map((m) => ({ teamId: m.team_id, organizationId: included(m, 'team', Team).organization_id, role: m.role })),
      scopedTeamOrganizations: new Map(),
    });
    return { session, principal };
  }

  /**
   * Ends at once the sessions of users an access change deactivated or suspended (this instance's changes as they
   * commit, the others' within a second through the access change feed), so reactivating them soon after does not
   * bring an old session back.
   */
  async endIfBarred(userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    const since = new Date(this.clock().getTime() - FRESH_SUSPENSION_MS);
    const [inactive, suspended] = await Promise.all([
      User.findAll({ where: { id: { [Op.in]: userIds }, is_active: false }, attributes: ['id'], useMaster: true }),
      OrganizationMembership.findAll({
        where: { user_id: { [Op.in]: userIds }, status: 'suspended', suspended_at: { [Op.gte]: since } },
        attributes: ['user_id'],
        useMaster: true,
      }),
    ]);
    const barred = new Set([...inactive.map((u) => u.id), ...suspended.map((m) => m.user_id)]);
    await Promise.all([...barred].map((id) => this.sessions.endForUser(id)));
  }
}
