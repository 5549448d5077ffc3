import { daysColumn } from '../../../db/rollups/memberActiveYears';
import { conditions } from '../../access/conditions';
import { deploymentCounts } from './dora';
import { measureDistributions } from './mergedPullRequests';
import { ratio, round } from './reading/figures';
import { MetricSql, roundHours } from './reading/sql';
import { groupRepositoriesSql } from './reading/scope';

/**
 * Do the teams that adopted AI coding tools ship faster or break more (docs/metrics.md#ai-impact)? The organization's
 * teams grouped by how much of their members' (today's) work had an AI tool in it: each member's share of their
 * active days in the window (a commit, a pull request opened or acted on, or AI use) on which they used one, OTLP's or
 * a vendor's, averaged over the team, a member with no active day counting 0. A single day of AI use among twenty of
 * work no longer makes someone an adopter. Each tier read as a team is ("what a team covers"), over its teams'
 * repositories together: time to merge, deployments a day and change failure rate. A fixed number of queries whatever
 * the number of teams, and members' days are counted and grouped in the database: what comes back is a row per team
 * and per tier's repository, never a row or an id per member (an organization of 80,000 members held them all, and
 * four such requests at once ended the process).
 */
export const TIERS = [
  { tier: 'under_25', from: 0, below: 0.25 },
  { tier: '25_to_50', from: 0.25, below: 0.5 },
  { tier: '50_to_75', from: 0.5, below: 0.75 },
  { tier: '75_and_over', from: 0.75, below: null },
] as const;

type TeamAdoption = { id: string; name: string; members: number; active_users: number; inactive_members: number; ai_day_share: number; tier: number };

export async function adoptionTiers(q: MetricSql) {
  const teams = await teamAdoption(q);
  const repositories = await repositoriesByTier(q, teams);
  // Tiers often cover the same repositories (at the large organization three of four cover all of them): each
  // distinct set is read once. The lists are in order, so equal sets are equal keys.
  const delivery = new Map<string, Promise<Delivery>>();
  const deliveryOf = (repositoryIds: string[]) => {
    const key = repositoryIds.join(',');
    const figures = delivery.get(key) ?? deliveryFigures(q, repositoryIds);
    delivery.set(key, figures);
    return figures;
  };
  return Promise.all(
    TIERS.map(async (tier, index) => {
      const inTier = teams.filter((team) => team.tier === index);
      const figures = inTier.length ? await deliveryOf(repositories.get(index) ?? []) : undefined;
      const deployments = figures?.deployments;
      return {
        ...tier,
        teams: inTier.map(({ id, name, members, active_users, inactive_members, ai_day_share }) => ({
          id,
          name,
          members,
          active_users,
          adoption_rate: round(active_users / members, 4),
          inactive_members,
          ai_day_share,
        })),
        time_to_merge_hours: { median: roundHours(figures?.mergeTimes?.at[50] ?? null), n: figures?.mergeTimes?.n ?? 0 },
        deployments_per_day: figures ? round((deployments?.deployments ?? 0) / q.window.days, 4) : null,
        change_failure_rate: { rate: ratio(deployments?.failed ?? 0, deployments?.finished ?? 0), failed: deployments?.failed ?? 0, deployments: deployments?.finished ?? 0 },
      };
    }),
  );
}

type Delivery = Awaited<ReturnType<typeof deliveryFigures>>;

/** A tier's delivery figures: its teams' repositories together, read as one team covering them would be (not a scope an answer names). */
async function deliveryFigures(q: MetricSql, repositoryIds: string[]) {
  const tq = q.over({ organizationId: q.scope.organizationId, teamId: null, memberIds: null, repositoryIds, repositories: 'owned' });
  const [merge, [deployments]] = await Promise.all([
    measureDistributions(tq, ['merge'], [50]),
    tq.rows<{ deployments: number; finished: number; failed: number }>(deploymentCounts(tq, tq.whole)),
  ]);
  return { mergeTimes: merge.all('merge')?.whole, deployments };
}

/**
 * Each member's active days in the window and how many of them had AI use, from their years in
 * member_active_years (db/rollups/memberActiveYears.ts): a day they authored a commit, opened a pull request or
 * acted on one (a review, an approval, a comment, a pushed commit), or used an AI tool (telemetry's or a vendor's).
 * Only those with such a day have a row; summed in the database, in the table's key order, one or two rows a member.
 */
function memberDaysSql(q: MetricSql): string {
  const active = q.yearsInWindow('a', (month) => `(a.${daysColumn('work', month)} | a.${daysColumn('ai', month)})`);
  const ai = q.yearsInWindow('a', (month) => `a.${daysColumn('ai', month)}`);
  return `SELECT a.user_id, SUM(${active.days}) AS active_days, SUM(${ai.days}) AS ai_days FROM member_active_years a
    WHERE a.organization_id = :scope_organization_id AND ${active.where} GROUP BY a.user_id HAVING active_days > 0`;
}

/**
 * Each team with members today: its members counted, those who used an AI tool on any day (`active_users`), those with
 * no active day (`inactive_members`), its `ai_day_share` (the mean of its members' AI days ÷ active days, 0 for one
 * without any, to four decimals) and its tier (the index in TIERS) by that share as it is reported: a team shown at
 * 0.25 is in 25_to_50. `1e0` makes the quotient a double on MariaDB, whose integer division keeps four digits.
 */
function adoptionSql(q: MetricSql): string {
  const counted = `SELECT m.team_id, COUNT(*) AS members,
      SUM(CASE WHEN d.ai_days > 0 THEN 1 ELSE 0 END) AS active_users,
      SUM(CASE WHEN d.user_id IS NULL THEN 1 ELSE 0 END) AS inactive_members,
      SUM(CASE WHEN d.user_id IS NULL THEN 0 ELSE 1e0 * d.ai_days / d.active_days END) AS ai_day_shares
    FROM teams t
    JOIN team_memberships m ON m.team_id = t.id AND ${conditions.activeMembershipSql('m')}
    LEFT JOIN (${memberDaysSql(q)}) d ON d.user_id = m.user_id
    WHERE t.organization_id = :scope_organization_id
    GROUP BY m.team_id`;
  const tier = TIERS.map((t, i) => ({ t, i }))
    .slice(1)
    .reverse()
    .map(({ t, i }) => `WHEN s.ai_day_share >= ${t.from} THEN ${i}`)
    .join(' ');
  const shared = `SELECT c.team_id, c.members, c.active_users, c.inactive_members, ROUND(c.ai_day_shares / c.members, 4) AS ai_day_share FROM (${counted}) c`;
  return `SELECT s.team_id, s.members, s.active_users, s.inactive_members, s.ai_day_share, CASE ${tier} ELSE 0 END AS tier FROM (${shared}) s`;
}

/** The organization's teams with members, by name, each with its adoption and tier. */
function teamAdoption(q: MetricSql): Promise<TeamAdoption[]> {
  return q.rows<TeamAdoption>(
    `SELECT ta.team_id AS id, t.name, ta.members, ta.active_users, ta.inactive_members, ta.ai_day_share, ta.tier FROM (${adoptionSql(q)}) ta JOIN teams t ON t.id = ta.team_id ORDER BY t.name, t.id`,
    ['id', 'name'],
  );
}

/**
 * The repositories each tier covers, each of its teams' as a team's scope takes them (reading/scope.ts). A row per
 * tier and repository; the tiers' teams are named (bound, never spliced), so the members' days are read once.
 */
async function repositoriesByTier(q: MetricSql, teams: TeamAdoption[]): Promise<Map<number, string[]>> {
  const tiers = TIERS.map((_, index) => teams.filter((team) => team.tier === index).map((team) => team.id));
  const named = tiers.flatMap((ids, index) => (ids.length ? [index] : []));
  if (named.length === 0) return new Map();
  const replacements = Object.fromEntries(named.map((index) => [`tier_${index}`, tiers[index]]));
  const rows = await q.rows<{ tier: number; repository_id: string }>(
    `SELECT r.grp AS tier, r.repository_id FROM (${groupRepositoriesSql(new Map(named.map((index) => [index, `:tier_${index}`])))}) r ORDER BY tier, r.repository_id`,
    ['repository_id'],
    replacements,
  );
  const byTier = new Map<number, string[]>();
  for (const { tier, repository_id } of rows) {
    const repositories = byTier.get(tier);
    if (repositories) repositories.push(repository_id);
    else byTier.set(tier, [repository_id]);
  }
  return byTier;
}
