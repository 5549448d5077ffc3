import { FIXTURE_ORGANIZATION_MEMBERSHIPS } from '../fixtures/organizations';
import { FIXTURE_TEAM_MEMBERSHIPS, FIXTURE_TEAMS } from '../fixtures/teams';
import { Inserter, Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { ScaleSpec } from '../scales';
import { MemberState, OrgState, Seeding, TeamState } from '../state';
import { createdAt, END_MS, toDate } from '../time';
import { MANAGER_TITLES, MEMBER_TITLES, TEAM_NAMES } from '../words';

/** Teams, who is in which (with titles and roles), and each member's organization role; written in that order. */
export async function seedTeams({ ins, root, spec }: Seeding, orgs: OrgState[], memberSortFields: (userId: string) => Row): Promise<TeamState[]> {
  const rngTeam = root.fork('teams');
  const teams = createTeams(rngTeam, spec, orgs);
  staffTeams(rngTeam, spec, orgs);
  assignOrganizationRoles(rngTeam, orgs);
  await writeTeams(ins, orgs, teams, memberSortFields);
  return teams;
}

/** The fixture teams, then each organization's generated ones (names from the list, numbered past its end). */
export function createTeams(rngTeam: Random, spec: ScaleSpec, orgs: OrgState[]): TeamState[] {
  const [acme, globex] = orgs;
  const teams: TeamState[] = [];
  for (const f of FIXTURE_TEAMS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    const t: TeamState = { id: f.id, org, name: f.name, createdMs: Date.parse(f.created_at), fixture: true, members: [] };
    org.teams.push(t);
    teams.push(t);
  }
  for (const org of orgs) {
    const n = org === acme ? spec.teamsAcme : org === globex ? spec.teamsGlobex : spec.teamsPerExtraOrg;
    const used = new Set(org.teams.map((t) => t.name));
    const names = rngTeam.shuffle(TEAM_NAMES.filter((name) => !used.has(name)));
    let previousMs = -1;
    for (let i = 0; i < n; i++) {
      const base = names[i % names.length];
      const round = Math.floor(i / names.length);
      const createdMs =
        previousMs >= 0 && rngTeam.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngTeam, org.createdMs + DAY_MS, Math.min(org.createdMs + 400 * DAY_MS, END_MS - 90 * DAY_MS));
      previousMs = createdMs;
      const t: TeamState = { id: rngTeam.id('team_'), org, name: round ? `${base} ${round + 1}` : base, createdMs, fixture: false, members: [] };
      org.teams.push(t);
      teams.push(t);
    }
  }
  return teams;
}

/** A manager per generated team first, then members (some in two teams, some in none); no generated team is left without a manager or a member. */
export function staffTeams(rngTeam: Random, spec: ScaleSpec, orgs: OrgState[]): void {
  const joinTeam = (team: TeamState, member: MemberState, role: 'member' | 'manager') => {
    const joinedMs = createdAt(rngTeam, Math.max(member.joinedMs, team.createdMs), END_MS - 14 * DAY_MS);
    const title = role === 'manager' ? rngTeam.pick(MANAGER_TITLES) : rngTeam.pick(MEMBER_TITLES);
    team.members.push({ member, role, title, joinedMs });
    member.teams.push({ team, joinedMs });
  };
  for (const org of orgs) {
    if (org.teams.length === 0) continue;
    // Managers first, one per generated team (from members not yet in a team), then everyone else.
    const pool = rngTeam.shuffle(org.members);
    let next = 0;
    for (const team of org.teams) {
      if (team.fixture || next >= pool.length) continue;
      joinTeam(team, pool[next++], 'manager');
    }
    for (; next < pool.length; next++) {
      const member = pool[next];
      if (!rngTeam.chance(0.92)) continue; // some people are in no team
      const ti = rngTeam.int(0, org.teams.length - 1);
      joinTeam(org.teams[ti], member, 'member');
      if (org.teams.length > 1 && rngTeam.chance(spec.secondTeamShare)) {
        const k = rngTeam.int(0, org.teams.length - 2);
        joinTeam(org.teams[k >= ti ? k + 1 : k], member, 'member');
      }
    }
    for (const team of org.teams) {
      if (team.fixture) continue;
      // Every generated team needs a manager and at least one member.
      const needsManager = !team.members.some((m) => m.role === 'manager');
      const needsMember = !team.members.some((m) => m.role === 'member');
      if (needsManager || needsMember) {
        const inTeam = new Set(team.members.map((m) => m.member));
        const outside = org.members.filter((m) => !inTeam.has(m));
        if (needsManager && outside.length > 0) {
          const m = outside.splice(rngTeam.int(0, outside.length - 1), 1)[0];
          joinTeam(team, m, 'manager');
        }
        if (needsMember && outside.length > 0) joinTeam(team, rngTeam.pick(outside), 'member');
      }
      // Larger teams sometimes have a co-manager.
      const plain = team.members.filter((m) => m.role === 'member');
      if (plain.length >= 4 && rngTeam.chance(0.15)) {
        const m = rngTeam.pick(plain);
        m.role = 'manager';
        m.title = rngTeam.pick(MANAGER_TITLES);
      }
    }
  }
}

/** Team managers are organization managers; a few admins (at least one per organization). */
export function assignOrganizationRoles(rngTeam: Random, orgs: OrgState[]): void {
  for (const org of orgs) {
    for (const m of org.members) {
      if (m.teams.some((t) => t.team.members.some((x) => x.member === m && x.role === 'manager'))) m.role = 'manager';
    }
    const hasFixtureAdmin = FIXTURE_ORGANIZATION_MEMBERSHIPS.some((f) => f.organization_id === org.id && f.role === 'admin');
    for (let i = 0; i < org.members.length; i++) {
      const m = org.members[i];
      if ((i === 0 && !hasFixtureAdmin) || rngTeam.chance(0.02)) m.role = 'admin';
      else if (m.role === 'collaborator' && rngTeam.chance(0.04)) m.role = 'manager';
    }
  }

}

export async function writeTeams(ins: Inserter, orgs: OrgState[], teams: TeamState[], memberSortFields: (userId: string) => Row): Promise<void> {
  const teamRows: Row[] = [
    ...FIXTURE_TEAMS.map((t) => ({ ...t, created_at: toDate(t.created_at) })),
    ...teams.filter((t) => !t.fixture).map((t) => ({ id: t.id, organization_id: t.org.id, name: t.name, created_at: new Date(t.createdMs) })),
  ];
  await ins.insertAll('teams', teamRows);

  function* orgMembershipRows(): Generator<Row> {
    for (const f of FIXTURE_ORGANIZATION_MEMBERSHIPS) yield { ...f, created_at: toDate(f.created_at), ...memberSortFields(f.user_id) };
    for (const org of orgs) {
      for (const m of org.members) {
        yield { organization_id: org.id, user_id: m.user.id, role: m.role, created_at: new Date(m.joinedMs), ...memberSortFields(m.user.id) };
      }
    }
  }
  await ins.insertAll('organization_memberships', orgMembershipRows());

  function* teamMembershipRows(): Generator<Row> {
    for (const f of FIXTURE_TEAM_MEMBERSHIPS) yield { ...f, created_at: toDate(f.created_at), ...memberSortFields(f.user_id) };
    for (const team of teams) {
      for (const m of team.members) {
        yield { team_id: team.id, user_id: m.member.user.id, title: m.title, role: m.role, created_at: new Date(m.joinedMs), ...memberSortFields(m.member.user.id) };
      }
    }
  }
  await ins.insertAll('team_memberships', teamMembershipRows());
}
