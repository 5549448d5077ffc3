import { DEFAULT_CURRENCY, TOOL_COST_CURRENCY } from '../finance/costInputs';
import { MetricSql } from './reading/sql';
import { ratio, round } from './reading/figures';
import { memberDays, memberDuringWindow, membersInWindowSql, membershipTable } from './members';
import { MergedCounts, mergedCountsSql } from './mergedPullRequests';

/**
 * What the scope's engineering costs (docs/metrics.md#ai-review-and-cost-figures), from the rates set with `npm run costs` and the activity of the
 * window. People: each member's annual cost (their own rate, else the organization's default) for the part of
 * the window they were a member. Allocation: each member's time split by the story points of the tasks they
 * completed in the window (stories and epics capitalizable, bugs and tasks expensed; a task without points weighs
 * one); a member who completed none is unallocated. AI: a tool with a seat price costs its price for each member
 * who used it, per month of the window; a tool without one costs what the tool estimated (in US dollars,
 * converted by the organization's USD rate when its currency is another), and a tool with neither leaves the
 * spend unknown. No rate, no figure: null, never 0.
 */
const DAYS_A_YEAR = 365;
const money = (amount: number | null) => (amount === null ? null : round(amount, 2));
const fte = (days: number, windowDays: number) => round(days / windowDays, 2);

type Rate = { subject: 'organization' | 'user' | 'tool' | 'usd_rate'; subject_id: string; amount: number; currency: string };
/** The scope's members during the window and their days; of those, the members with a rate of their own. */
type Members = { members: number; days: number };
type OwnRates = { members: number; days: number | null; cost: number | null };
/** The tasks completed in the window; member-days split by the story points each member completed, and (priced members only) what they cost. */
type Allocation = { completed: number | null; capitalizable_days: number | null; expensed_days: number | null; capitalizable_cost: number | null; expensed_cost: number | null };

export async function financialFigures(q: MetricSql) {
  const ratesRead = q.rows<Rate>('SELECT subject, subject_id, amount, currency FROM cost_rates WHERE organization_id = :scope_organization_id', ['subject', 'subject_id', 'currency']);
  const [rates, [members], [own], [split], [pullRequests], activeUsers, toolCosts] = await Promise.all([
    ratesRead,
    q.rows<Members>(membersInWindowSql(q)),
    q.rows<OwnRates>(ownRatesSql(q)),
    // Without rates of their own, no assignee is looked up for one.
    ratesRead.then((r) => q.rows<Allocation>(allocationSql(q, r.some((rate) => rate.subject === 'user')))),
    q.rows<MergedCounts>(mergedCountsSql(q, q.whole)),
    // Only the tools with a seat price are counted apart: the rates say which.
    ratesRead.then((r) => q.rows<{ tool: string; users: number }>(activeUsersSql(q), ['tool'], { tools: ['', ...r.filter((rate) => rate.subject === 'tool').map((rate) => rate.subject_id)] })),
    q.rows<{ tool: string; cost_usd: number }>(toolCostsSql(q), ['tool']),
  ]);
  const currency = rates[0]?.currency ?? DEFAULT_CURRENCY;
  const people = peopleCost(rates, members, own);
  const perMember = (amount: number | null, per: number) => (amount === null || per === 0 ? null : money(amount / per));
  const windowFte = members.days / q.window.days;
  const cost = people.cost;
  // The all-tools rows ('') count each member once, whatever tools they used.
  const anyTool = activeUsers.find((r) => r.tool === '')?.users ?? 0;
  const { spend, unpriced } = aiSpend(q, rates, currency, activeUsers, toolCosts);
  const [capitalizableDays, expensedDays] = [Number(split?.capitalizable_days ?? 0), Number(split?.expensed_days ?? 0)];
  const [capitalizableCost, expensedCost] = [Number(split?.capitalizable_cost ?? 0), Number(split?.expensed_cost ?? 0)];
  const part = (days: number, partCost: number | null) => ({ fte: fte(days, q.window.days), cost: cost === null ? null : money(partCost ?? 0), share: ratio(days, members.days) });
  return {
    currency,
    members: members.members,
    fte: round(windowFte, 2),
    people_cost: { amount: money(cost), priced_members: people.priced, members: members.members },
    cost_per_engineer: perMember(cost, people.pricedDays / q.window.days),
    cost_per_merged_pr: perMember(cost, pullRequests?.merged ?? 0),
    cost_per_completed_task: perMember(cost, Number(split?.completed ?? 0)),
    allocation: {
      capitalizable: part(capitalizableDays, capitalizableCost),
      expensed: part(expensedDays, expensedCost),
      unallocated: part(members.days - capitalizableDays - expensedDays, cost === null ? null : cost - capitalizableCost - expensedCost),
    },
    ai: {
      spend: money(spend),
      spend_per_engineer: perMember(spend, windowFte),
      spend_per_active_user: perMember(spend, anyTool),
      cost_per_ai_assisted_pr: perMember(spend, pullRequests?.ai ?? 0),
      active_users: anyTool,
      tool_estimate_usd: round(toolCosts.reduce((s, r) => s + r.cost_usd, 0), 4),
      unpriced_tools: unpriced,
    },
  };
}

const completedTasks = (q: MetricSql) => `${q.scoped('t', 'task')} AND t.status = 'done' AND t.completed_at IS NOT NULL AND ${q.inWindow('t.completed_at')}`;

/**
 * The people cost: every member-day at the member's own rate, else the organization's default. With a default,
 * every member is priced: the default over all their days, corrected for the few with a rate of their own.
 */
function peopleCost(rates: Rate[], members: Members, own: OwnRates) {
  const fallback = rates.find((r) => r.subject === 'organization');
  const [ownDays, ownCost] = [Number(own.days ?? 0), Number(own.cost ?? 0)];
  if (!fallback) return { priced: own.members, pricedDays: ownDays, cost: own.members > 0 ? ownCost / DAYS_A_YEAR : null };
  const priced = members.members;
  return { priced, pricedDays: members.days, cost: priced > 0 ? (Number(fallback.amount) * (members.days - ownDays) + ownCost) / DAYS_A_YEAR : null };
}

/** One row: the members during the window who have a rate of their own, their days, and Σ days × annual rate. */
function ownRatesSql(q: MetricSql): string {
  const { table, owner } = membershipTable(q);
  const days = memberDays(q);
  return `SELECT COUNT(*) AS members, SUM(${days}) AS days, SUM(${days} * own.amount) AS cost
    FROM cost_rates own JOIN ${table} m ON ${owner} AND m.user_id = own.subject_id AND ${memberDuringWindow(q)}
    WHERE own.organization_id = :scope_organization_id AND own.subject = 'user'`;
}

/**
 * One row: the tasks completed in the window, and each member's days split by the share of their story points
 * completed in it that were capitalizable, summed, and what those days cost. The completed tasks are read once,
 * grouped by assignee (the unassigned in a group of their own, counted but never allocated), and each assignee looked
 * up once for a membership during the window and, when the organization has any (`ownRates`), a rate of their own.
 */
function allocationSql(q: MetricSql, ownRates: boolean): string {
  const points = 'COALESCE(t.story_points, 1)';
  const dayCost = `${ownRates ? 'COALESCE(own.amount, fallback.amount)' : 'fallback.amount'} / ${DAYS_A_YEAR}`;
  // An assignee with no membership during the window (or no points) has no days to split.
  const days = `CASE WHEN m.user_id IS NULL THEN NULL ELSE ${memberDays(q)} END`;
  const capitalizable = `${days} * w.capitalizable / w.points`;
  const expensed = `${days} * (w.points - w.capitalizable) / w.points`;
  const { table, owner } = membershipTable(q);
  return `SELECT SUM(w.tasks) AS completed, SUM(${capitalizable}) AS capitalizable_days, SUM(${expensed}) AS expensed_days,
      SUM(${capitalizable} * ${dayCost}) AS capitalizable_cost, SUM(${expensed} * ${dayCost}) AS expensed_cost
    FROM (SELECT t.assignee_id, COUNT(*) AS tasks, SUM(${points}) AS points, SUM(CASE WHEN t.type IN ('story', 'epic') THEN ${points} ELSE 0 END) AS capitalizable
          FROM tasks t WHERE ${completedTasks(q)} GROUP BY t.assignee_id) AS w
    LEFT JOIN ${table} m ON ${owner} AND m.user_id = w.assignee_id AND w.points > 0 AND ${memberDuringWindow(q)}
    ${ownRates ? "LEFT JOIN cost_rates own ON own.organization_id = :scope_organization_id AND own.subject = 'user' AND own.subject_id = w.assignee_id" : ''}
    LEFT JOIN cost_rates fallback ON fallback.organization_id = :scope_organization_id AND fallback.subject = 'organization' AND fallback.subject_id = ''`;
}

/** Members who used AI tools in the window: with any tool (tool ''), and per tool of `:tools`, in one read of their years. */
function activeUsersSql(q: MetricSql): string {
  const years = q.yearsInWindow('a');
  return `SELECT a.tool, COUNT(DISTINCT a.user_key) AS users FROM ai_active_years a
    WHERE ${q.scoped('a', 'member')} AND a.tool IN (:tools) AND ${years.where} AND ${years.any} <> 0 GROUP BY a.tool`;
}

/** The tools' own cost estimates in the window, per tool: the organization's (its unattributed use too), or the team's members'. */
function toolCostsSql(q: MetricSql): string {
  return q.scope.teamId
    ? `SELECT a.tool, SUM(a.cost_usd) AS cost_usd FROM ai_usage_days a WHERE ${q.scoped('a', 'member')} AND ${q.inDays('a.day')} AND a.user_key <> '' GROUP BY a.tool`
    : `SELECT a.tool, SUM(a.cost_usd) AS cost_usd FROM ai_usage_org_days a WHERE a.organization_id = :scope_organization_id AND ${q.inDays('a.day')} GROUP BY a.tool`;
}

/**
 * Seats for the tools with a seat price (price × members who used the tool × months of the window), the tools'
 * estimates for the others. `unpriced`: the tools used in the scope in the window (`toolCosts` has a row for each)
 * with neither a seat price nor an estimate of their own (Copilot, Cursor, Gemini CLI and Codex report none):
 * their use is not free, only unpriced, so the spend is null while any is. Null too when an estimate cannot be
 * put in the organization's currency (no USD rate).
 */
function aiSpend(
  q: MetricSql,
  rates: Rate[],
  currency: string,
  toolUsers: { tool: string; users: number }[],
  toolCosts: { tool: string; cost_usd: number }[],
): { spend: number | null; unpriced: string[] } {
  const seat = new Map(rates.filter((r) => r.subject === 'tool').map((r) => [r.subject_id, Number(r.amount)]));
  const unpriced = toolCosts.filter((c) => !seat.has(c.tool) && !(c.cost_usd > 0)).map((c) => c.tool).sort();
  if (unpriced.length) return { spend: null, unpriced };
  const usdRate = currency === TOOL_COST_CURRENCY ? 1 : Number(rates.find((r) => r.subject === 'usd_rate')?.amount ?? NaN);
  const months = (q.window.days * 12) / DAYS_A_YEAR;
  let spend = 0;
  for (const [tool, price] of seat) spend += price * (toolUsers.find((u) => u.tool === tool)?.users ?? 0) * months;
  const estimated = toolCosts.filter((c) => !seat.has(c.tool)).reduce((s, c) => s + c.cost_usd, 0);
  if (estimated > 0) {
    if (Number.isNaN(usdRate)) return { spend: null, unpriced };
    spend += estimated * usdRate;
  }
  return { spend, unpriced };
}
