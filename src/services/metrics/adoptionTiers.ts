import { conditions } from '../../access/conditions';
import { deploymentCounts } from './dora';
import { measureDistributions } from './mergedPullRequests';
import { ratio, round } from './reading/figures';
import { MetricSql, roundHours } from './reading/sql';

/**
 * Do the teams that adopted AI coding tools ship faster or break more (docs/metrics.md#ai-impact)? The organization's
 * teams grouped by the share of their members (today's) active with any AI tool in the window, OTLP's or a
 * vendor's; each tier read as a team is ("what a team covers"), over its teams' repositories together: time to
 * merge, deployments a day and change failure rate. A fixed number of queries, whatever the number of teams.
 */
export const TIERS = [
  { tier: 'under_25', from: 0, below: 0.25 },
  { tier: '25_to_50', from: 0.25, below: 0.5 },
  { tier: '50_to_75', from: 0.5, below: 0.75 },
  { tier: '75_and_over', from: 0.75, below: null },
] as const;

type TeamAdoption = { id: string; name: string; members: number; active_users: number; adoption_rate: number; memberIds: string[]; share: number };

export async function adoptionTiers(q: MetricSql) {
  const teams = await teamAdoption(q);
  const tiers = TIERS.map((t) => ({ ...t, teams: teams.filter((team) => team.share >= t.from && (t.below === null || team.share < t.below)) }));
  const repositories = await repositoriesOfMembers(q, [...new Set(teams.flatMap((team) => team.memberIds))]);
  return Promise.all(
    tiers.map(async ({ teams: inTier, ...tier }) => {
      const members = [...new Set(inTier.flatMap((team) => team.memberIds))].sort();
      const tq = q.over({ organizationId: q.scope.organizationId, teamId: null, memberIds: members, repositoryIds: [...new Set(members.flatMap((m) => repositories.get(m) ?? []))].sort() });
      const [merge, [deployments]] = await Promise.all([
        inTier.length ? measureDistributions(tq, ['merge'], [50]) : undefined,
        inTier.length ? tq.rows<{ deployments: number; finished: number; failed: number }>(deploymentCounts(tq, tq.whole)) : [],
      ]);
      const mergeTimes = merge?.all('merge')?.whole;
      return {
        ...tier,
        teams: inTier.map((team) => ({ id: team.id, name: team.name, members: team.members, active_users: team.active_users, adoption_rate: team.adoption_rate })),
        time_to_merge_hours: { median: roundHours(mergeTimes?.at[50] ?? null), n: mergeTimes?.n ?? 0 },
        deployments_per_day: inTier.length ? round((deployments?.deployments ?? 0) / q.window.days, 4) : null,
        change_failure_rate: { rate: ratio(deployments?.failed ?? 0, deployments?.finished ?? 0), failed: deployments?.failed ?? 0, deployments: deployments?.finished ?? 0 },
      };
    }),
  );
}

/** Each team with members today: how many, and how many were active with an AI tool in the window (their any-tool months). */
async function teamAdoption(q: MetricSql): Promise<TeamAdoption[]> {
  const months = q.monthsInWindow('a.month');
  const [memberships, active] = await Promise.all([
    q.rows<{ id: string; name: string; user_id: string }>(
      `SELECT t.id, t.name, m.user_id FROM teams t JOIN team_memberships m ON m.team_id = t.id
        WHERE t.organization_id = :scope_organization_id AND ${conditions.activeMembershipSql('m')} ORDER BY t.name, t.id, m.user_id`,
      ['id', 'name', 'user_id'],
    ),
    q.rows<{ user_key: string }>(
      `SELECT DISTINCT a.user_key FROM ai_active_months a
        WHERE a.organization_id = :scope_organization_id AND a.tool = '' AND ${months.where} AND ${months.windowDays('a.days')} <> 0`,
      ['user_key'],
    ),
  ]);
  const activeUsers = new Set(active.map((r) => r.user_key));
  const teams = new Map<string, { id: string; name: string; memberIds: string[] }>();
  for (const r of memberships) {
    const team = teams.get(r.id) ?? { id: r.id, name: r.name, memberIds: [] };
    team.memberIds.push(r.user_id);
    teams.set(r.id, team);
  }
  return [...teams.values()].map((team) => {
    const activeCount = team.memberIds.filter((m) => activeUsers.has(m)).length;
    // The tier by the exact share; the rate shown is rounded.
    const share = activeCount / team.memberIds.length;
    return { ...team, members: team.memberIds.length, active_users: activeCount, adoption_rate: round(share, 4), share };
  });
}

/** The repositories each member authored commits in (kept by the commit writer: author_repositories), as a team's scope takes them. */
async function repositoriesOfMembers(q: MetricSql, members: string[]): Promise<Map<string, string[]>> {
  const byMember = new Map<string, string[]>();
  if (members.length === 0) return byMember;
  const rows = await q.rows<{ user_id: string; repository_id: string }>(
    'SELECT ar.user_id, ar.repository_id FROM author_repositories ar WHERE ar.organization_id = :scope_organization_id AND ar.user_id IN (:members)',
    ['user_id', 'repository_id'],
    { members },
  );
  for (const r of rows) {
    const repositories = byMember.get(r.user_id);
    if (repositories) repositories.push(r.repository_id);
    else byMember.set(r.user_id, [r.repository_id]);
  }
  return byMember;
}
