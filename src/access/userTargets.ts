import { literal } from 'sequelize';
import { OrganizationMembership, TeamMembership, User } from '../../db/models';
import { conditions } from './conditions';
import { findPlain } from '../persistence/query/plainRows';
import { ResultCache } from '../persistence/query/countCache';
import { DataVersions } from '../persistence/query/dataVersions';

/**
 * What the guard reads of a user addressed by a path, kept between requests: their row with their active
 * organizations, and their active teams. The access rules are applied per request to what is kept
 * (src/access/guard.ts).
 */

export interface UserTarget {
  user: User;
  organizationIds: readonly string[];
}

/** The active organizations of the `user` row a query reads, as one comma-separated value (ids hold no commas). */
const ACTIVE_ORGANIZATION_IDS = literal(
  `(SELECT GROUP_CONCAT(m.organization_id) FROM organization_memberships m WHERE m.user_id = \`user\`.id AND ${conditions.activeMembershipSql('m')})`,
);

const GROUP_CONCAT_SAFE_LENGTH = 1000;

async function activeOrganizationIds(userId: string): Promise<string[]> {
  const memberships = await OrganizationMembership.findAll({ where: { user_id: userId, ...conditions.activeMembership }, attributes: ['organization_id'] });
  return memberships.map((m) => m.organization_id);
}

/** What the guard of every /users/{id} path reads; `null`: no such user. */
async function readUserTarget(userId: string): Promise<Readonly<UserTarget> | null> {
  // One statement: the user with their active organizations beside.
  const [user] = await findPlain(User, { where: { id: userId }, attributes: { include: [[ACTIVE_ORGANIZATION_IDS, 'active_organization_ids']] }, limit: 1 });
  if (!user) return null;
  // The GROUP_CONCAT's text; null for none.
  const joined: unknown = Reflect.get(user, 'active_organization_ids');
  // MySQL cuts GROUP_CONCAT at group_concat_max_len, 1024 bytes by default (MariaDB's is 1 MB): a user in some 40
  // organizations or more is read again in full rather than lose organizations.
  const organizationIds = typeof joined !== 'string' ? [] : joined.length < GROUP_CONCAT_SAFE_LENGTH ? joined.split(',') : await activeOrganizationIds(userId);
  return Object.freeze({ user: Object.freeze(user), organizationIds: Object.freeze(organizationIds) });
}

const USER_TARGET_TABLES = ['users', 'organization_memberships'];

/**
 * Users and their active organizations, read once per version of the two tables: every writer of either raises
 * its version in the change's transaction, and every instance knows it before the writer answers
 * (src/persistence/query/dataVersions.ts), so a membership ended is seen by the next request as the lists' totals
 * are. Every /users/{id} list then makes one statement, its page, where it made two (docs/performance.md). A change
 * by hand in SQL raises no version: it shows within USER_TARGET_TTL_MS, as cached totals show within theirs.
 * Entries are shared by every caller: frozen, and the access rules are applied to them per request.
 */
const USER_TARGET_TTL_MS = 10_000;
const userTargets = new ResultCache<Readonly<UserTarget> | null>(USER_TARGET_TTL_MS, 10_000);

export async function userTarget(userId: string): Promise<Readonly<UserTarget> | null> {
  const versions = await DataVersions.for(User.sequelize!).of(USER_TARGET_TABLES);
  return userTargets.getOrCompute(`${versions}|${userId}`, () => readUserTarget(userId));
}

/**
 * A user's active teams, kept as `userTarget` is, per version of `team_memberships`: what a user's dashboard views
 * and a manager's sight of their interactions depend on, read on every such request.
 */
const activeTeams = new ResultCache<readonly string[]>(USER_TARGET_TTL_MS, 10_000);

export async function activeTeamIdsOf(userId: string): Promise<readonly string[]> {
  const versions = await DataVersions.for(TeamMembership.sequelize!).of(['team_memberships']);
  return activeTeams.getOrCompute(`${versions}|${userId}`, async () =>
    Object.freeze((await TeamMembership.findAll({ where: { user_id: userId, ...conditions.activeMembership }, attributes: ['team_id'] })).map((m) => m.team_id)),
  );
}

