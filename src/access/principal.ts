import type { OrganizationRole, TeamRole } from '../../db/models';

/** Who is calling, with the effective access of docs/api.md#who-sees-what: the user's memberships ∩ the token's scope. */
export interface Principal {
  userId: string;
  tokenId: string;
  /** Accessible organizations → the caller's role in each. */
  organizations: ReadonlyMap<string, OrganizationRole>;
  /** `null`: every team of an accessible organization; otherwise only these teams (the token names teams). */
  teamScope: ReadonlySet<string> | null;
  /** The caller's own memberships in accessible teams. */
  teams: ReadonlyMap<string, { organizationId: string; role: TeamRole }>;
}

export interface TokenScope {
  organizationIds: string[];
  teamIds: string[];
}

export interface Memberships {
  organizations: { organizationId: string; role: OrganizationRole }[];
  teams: { teamId: string; organizationId: string; role: TeamRole }[];
  /** Owning organization of each team the token scope names. */
  scopedTeamOrganizations: Map<string, string>;
}

/**
 * A token without scope acts for all of its user's organizations. A scoped token allows the organizations it
 * names plus the organizations of the teams it names; when it names teams, only those teams are accessible.
 */
export function effectiveAccess(userId: string, tokenId: string, scope: TokenScope, m: Memberships): Principal {
  const scoped = scope.organizationIds.length > 0 || scope.teamIds.length > 0;
  const allowedOrgs = new Set([...scope.organizationIds, ...m.scopedTeamOrganizations.values()]);
  const organizations = new Map<string, OrganizationRole>();
  for (const { organizationId, role } of m.organizations) {
    if (!scoped || allowedOrgs.has(organizationId)) organizations.set(organizationId, role);
  }
  const teamScope = scope.teamIds.length > 0 ? new Set(scope.teamIds) : null;
  const teams = new Map<string, { organizationId: string; role: TeamRole }>();
  for (const t of m.teams) {
    if (organizations.has(t.organizationId) && (!teamScope || teamScope.has(t.teamId))) {
      teams.set(t.teamId, { organizationId: t.organizationId, role: t.role });
    }
  }
  return { userId, tokenId, organizations, teamScope, teams };
}

/**
 * Everything a caller's answers may depend on, written out: who (personal data and "own" rules) and what they may
 * reach (organizations and roles, the token's teams, their own teams and roles). Two callers with the same key
 * are allowed exactly the same; the token itself is not part of it (two tokens of one user with one scope see the same).
 */
export function accessKey(p: Principal): string {
  const sorted = <T>(entries: Iterable<[string, T]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    p.userId,
    sorted(p.organizations),
    p.teamScope ? [...p.teamScope].sort() : null,
    sorted(p.teams).map(([id, t]) => [id, t.organizationId, t.role]),
  ]);
}
