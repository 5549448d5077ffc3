import { conditions } from '../../access/conditions';
import { deploymentCounts } from './dora';
import { measureDistributions } from './mergedPullRequests';
import { ratio, round } from './reading/figures';
import { MetricSql, roundHours } from './reading/sql';
import { teamRepositoriesSql } from './reading/scope';

/**
 * Do the teams that adopted AI coding tools ship faster or break more (docs/metrics.md#ai-impact)? The organization's
 * teams grouped by the share of their members (today's) active with any AI tool in the window, OTLP's or a
 * vendor's; each tier read as a team is ("what a team covers"), over its teams' repositories together: time to
 * merge, deployments a day and change failure rate. A fixed number of queries whatever the number of teams, and
 * members are counted and grouped in the database: what comes back is a row per team and per tier's repository,
 * never a row or an id per member (an organization of 80,000 members held them all, and four such requests at once
 * ended the process).
 */
export const TIERS = [
  { tier: 'under_25', from: 0, below: 0.25 },
  { tier: '25_to_50', from: 0.25, below: 0.5 },
  { tier: '50_to_75', from: 0.5, below: 0.75 },
  { tier: '75_and_over', from: 0.75, below: null },
] as const;

type TeamAdoption = { id: string; name: string; members: number; active_users: number; tier: number };

export async function adoptionTiers(q: MetricSql) {
  const [teams, repositories] = await Promise.all([teamAdoption(q), repositoriesByTier(q)]);
  return Promise.all(
    TIERS.map(async (tier, index) => {
      const inTier = teams.filter((team) => team.tier === index);
      // Its teams' repositories together, each team's by its own rule: a tier is no scope an answer names.
      const tq = q.over({ organizationId: q.scope.organizationId, teamId: null, memberIds: null, repositoryIds: repositories.get(index) ?? [], repositories: 'owned' });
      const [merge, [deployments]] = await Promise.all([
        inTier.length ? measureDistributions(tq, ['merge'], [50]) : undefined,
        inTier.length ? tq.rows<{ deployments: number; finished: number; failed: number }>(deploymentCounts(tq, tq.whole)) : [],
      ]);
      const mergeTimes = merge?.all('merge')?.whole;
      return {
        ...tier,
        teams: inTier.map(({ id, name, members, active_users }) => ({ id, name, members, active_users, adoption_rate: round(active_users / members, 4) })),
        time_to_merge_hours: { median: roundHours(mergeTimes?.at[50] ?? null), n: mergeTimes?.n ?? 0 },
        deployments_per_day: inTier.length ? round((deployments?.deployments ?? 0) / q.window.days, 4) : null,
        change_failure_rate: { rate: ratio(deployments?.failed ?? 0, deployments?.finished ?? 0), failed: deployments?.failed ?? 0, deployments: deployments?.finished ?? 0 },
      };
    }),
  );
}

/**
 * Each team with members today, its members counted and those active with an AI tool in the window (their any-tool
 * months), and its tier (the index in TIERS) by the exact share, compared in integers: a share of 1/4 is 25 %.
 */
function adoptionSql(q: MetricSql): string {
  const months = q.monthsInWindow('a.month');
  const counted = `SELECT m.team_id, COUNT(*) AS members, SUM(CASE WHEN a.user_key IS NULL THEN 0 ELSE 1 END) AS active_users
    FROM teams t
    JOIN team_memberships m ON m.team_id = t.id AND ${conditions.activeMembershipSql('m')}
    LEFT JOIN (SELECT DISTINCT a.user_key FROM ai_active_months a
      WHERE a.organization_id = :scope_organization_id AND a.tool = '' AND ${months.where} AND ${months.windowDays('a.days')} <> 0) a ON a.user_key = m.user_id
    WHERE t.organization_id = :scope_organization_id
    GROUP BY m.team_id`;
  const tier = TIERS.slice(1)
    .map((t, i) => `WHEN ${t.from * 4} * c.members > 4 * c.active_users THEN ${i}`)
    .join(' ');
  return `SELECT c.team_id, c.members, c.active_users, CASE ${tier} ELSE ${TIERS.length - 1} END AS tier FROM (${counted}) c`;
}

/** The organization's teams with members, by name, each with its adoption and tier. */
function teamAdoption(q: MetricSql): Promise<TeamAdoption[]> {
  return q.rows<TeamAdoption>(
    `SELECT ta.team_id AS id, t.name, ta.members, ta.active_users, ta.tier FROM (${adoptionSql(q)}) ta JOIN teams t ON t.id = ta.team_id ORDER BY t.name, t.id`,
    ['id', 'name'],
  );
}

/** The repositories each tier covers, each of its teams' as a team's scope takes them (reading/scope.ts). A row per tier and repository. */
async function repositoriesByTier(q: MetricSql): Promise<Map<number, string[]>> {
  const rows = await q.rows<{ tier: number; repository_id: string }>(
    `SELECT DISTINCT ta.tier, r.repository_id FROM (${adoptionSql(q)}) ta
      JOIN (${teamRepositoriesSql()}) r ON r.team_id = ta.team_id
      ORDER BY ta.tier, r.repository_id`,
    ['repository_id'],
  );
  const byTier = new Map<number, string[]>();
  for (const { tier, repository_id } of rows) {
    const repositories = byTier.get(tier);
    if (repositories) repositories.push(repository_id);
    else byTier.set(tier, [repository_id]);
  }
  return byTier;
}
