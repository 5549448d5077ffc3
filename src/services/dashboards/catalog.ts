import type { Panel } from './panels';

/**
 * The dashboard catalog (docs/dashboards.md): each type of dashboard a view is made from, with its panels. Declared
 * here once; migration 0037 wrote the same keys, names, descriptions and categories to `dashboard_catalog` (0052 the
 * wellbeing description again), which `/v1/dashboard-views/catalog` lists (test/api/dashboards.test.ts holds them
 * equal).
 */
export interface DashboardType {
  key: string;
  name: string;
  description: string;
  category: 'delivery' | 'planning' | 'people' | 'ai' | 'financial';
  panels: Panel[];
}

const dora: Panel[] = [
  { metric: 'dora', title: 'Deployments a day', unit: 'per_day', chart: 'number', figure: 'deployment_frequency.per_day', band: 'deployment_frequency.band' },
  { metric: 'dora', title: 'Lead time for changes', unit: 'hours', chart: 'number', figure: 'lead_time_for_changes.median_hours', band: 'lead_time_for_changes.band' },
  { metric: 'dora', title: 'Change failure rate', unit: 'ratio', chart: 'number', figure: 'change_failure_rate.rate', band: 'change_failure_rate.band' },
  { metric: 'dora', title: 'Time to restore', unit: 'hours', chart: 'number', figure: 'time_to_restore.median_hours', band: 'time_to_restore.band' },
  { metric: 'dora', title: 'Rework rate', unit: 'ratio', chart: 'number', figure: 'rework_rate.rate', band: 'rework_rate.band' },
  {
    metric: 'dora',
    title: 'Deployments',
    unit: 'count',
    chart: 'stacked_bar',
    series: [
      { label: 'Successful', figure: 'deployments' },
      { label: 'Failed', figure: 'failed' },
    ],
  },
  { metric: 'dora', title: 'Median lead time', unit: 'hours', chart: 'line', series: [{ label: 'Lead time', figure: 'median_lead_time_hours' }] },
  { metric: 'dora', title: 'Change failure rate by period', unit: 'ratio', chart: 'line', series: [{ label: 'Change failure rate', figure: 'change_failure_rate' }] },
];

const pullRequests: Panel[] = [
  { metric: 'pull-requests', title: 'Merged', unit: 'count', chart: 'number', figure: 'merged' },
  { metric: 'pull-requests', title: 'Median time to merge', unit: 'hours', chart: 'number', figure: 'time_to_merge_hours.median' },
  { metric: 'pull-requests', title: 'Open now', unit: 'count', chart: 'number', figure: 'open_now' },
  {
    metric: 'pull-requests',
    title: 'Pull requests',
    unit: 'count',
    chart: 'bar',
    series: [
      { label: 'Opened', figure: 'opened' },
      { label: 'Merged', figure: 'merged' },
      { label: 'Closed unmerged', figure: 'closed_unmerged' },
    ],
  },
  {
    metric: 'pull-requests',
    title: 'Time to merge',
    unit: 'hours',
    chart: 'line',
    series: [
      { label: 'Median', figure: 'time_to_merge_hours.median' },
      { label: '75th percentile', figure: 'time_to_merge_hours.p75' },
      { label: '90th percentile', figure: 'time_to_merge_hours.p90' },
    ],
  },
];

const collaboration: Panel[] = [
  { metric: 'collaboration', title: 'Reviews given', unit: 'count', chart: 'number', figure: 'reviews' },
  { metric: 'collaboration', title: 'Knowledge sharing index', unit: 'index', chart: 'number', figure: 'sharing_index' },
  { metric: 'collaboration', title: 'Merged unreviewed', unit: 'ratio', chart: 'number', figure: 'unreviewed_merged.share' },
  {
    metric: 'collaboration',
    title: 'Review stages (median)',
    unit: 'hours',
    chart: 'line',
    series: [
      { label: 'Pickup', figure: 'pickup_hours.median' },
      { label: 'First approval', figure: 'time_to_first_approval_hours.median' },
      { label: 'Review to merge', figure: 'review_to_merge_hours.median' },
    ],
  },
  { metric: 'collaboration', title: 'Review load', unit: 'count', chart: 'table', rows: 'review_load', label: 'user_id', columns: [{ label: 'Reviews', figure: 'reviews' }, { label: 'Share', figure: 'share' }] },
];

const flow: Panel[] = [
  { metric: 'flow', title: 'Completed', unit: 'count', chart: 'number', figure: 'completed' },
  { metric: 'flow', title: 'Median cycle time', unit: 'hours', chart: 'number', figure: 'cycle_time_hours.median' },
  { metric: 'flow', title: 'Flow efficiency', unit: 'ratio', chart: 'number', figure: 'flow_efficiency' },
  { metric: 'flow', title: 'In progress now', unit: 'count', chart: 'number', figure: 'in_progress_now' },
  {
    metric: 'flow',
    title: 'Completed by type',
    unit: 'count',
    chart: 'stacked_bar',
    series: [
      { label: 'Stories', figure: 'by_type.story' },
      { label: 'Bugs', figure: 'by_type.bug' },
      { label: 'Tasks', figure: 'by_type.task' },
      { label: 'Epics', figure: 'by_type.epic' },
    ],
  },
  {
    metric: 'flow',
    title: 'Lead and cycle time (median)',
    unit: 'hours',
    chart: 'line',
    series: [
      { label: 'Lead time', figure: 'lead_time_hours.median' },
      { label: 'Cycle time', figure: 'cycle_time_hours.median' },
    ],
  },
];

const sprint: Panel[] = [
  { metric: 'flow', title: 'Completed', unit: 'count', chart: 'number', figure: 'completed' },
  { metric: 'flow', title: 'Reopened', unit: 'count', chart: 'number', figure: 'reworked' },
  { metric: 'flow', title: 'Unassigned now', unit: 'count', chart: 'number', figure: 'unassigned_now' },
  {
    metric: 'flow',
    title: 'Done, reopened and canceled',
    unit: 'count',
    chart: 'bar',
    series: [
      { label: 'Completed', figure: 'completed' },
      { label: 'Reopened', figure: 'reworked' },
      { label: 'Canceled', figure: 'canceled' },
    ],
  },
];

const commits: Panel = { metric: 'activity', title: 'Commits', unit: 'count', chart: 'number', figure: 'commits' };
const commitsByPeriod: Panel = { metric: 'activity', title: 'Commits by period', unit: 'count', chart: 'bar', series: [{ label: 'Commits', figure: 'commits' }] };
const activeAuthors: Panel[] = [
  { metric: 'activity', title: 'Active authors', unit: 'count', chart: 'number', figure: 'active_authors' },
  { metric: 'activity', title: 'Active authors by period', unit: 'count', chart: 'line', series: [{ label: 'Active authors', figure: 'active_authors' }] },
];

const interactions: Panel = {
  metric: 'activity',
  title: 'Interactions',
  unit: 'count',
  chart: 'stacked_bar',
  series: [
    { label: 'Code reviews', figure: 'interactions_by_type.code_review' },
    { label: 'Communications', figure: 'interactions_by_type.communication' },
    { label: 'Task assignments', figure: 'interactions_by_type.task_assignment' },
  ],
};

const aiUsage: Panel[] = [
  { metric: 'ai-usage', title: 'Active users', unit: 'count', chart: 'number', figure: 'active_users' },
  { metric: 'ai-usage', title: 'Adoption', unit: 'ratio', chart: 'number', figure: 'adoption_rate' },
  { metric: 'ai-usage', title: 'Estimated cost', unit: 'usd', chart: 'number', figure: 'cost_usd' },
  { metric: 'ai-usage', title: 'Active users by period', unit: 'count', chart: 'line', series: [{ label: 'Active users', figure: 'active_users' }] },
  { metric: 'ai-usage', title: 'Sessions', unit: 'count', chart: 'bar', series: [{ label: 'Sessions', figure: 'sessions' }] },
  {
    metric: 'ai-usage',
    title: 'By tool',
    unit: 'count',
    chart: 'table',
    rows: 'by_tool',
    label: 'tool',
    columns: [
      { label: 'Active users', figure: 'active_users' },
      { label: 'Sessions', figure: 'sessions' },
      { label: 'Suggestions accepted', figure: 'suggestions.accepted' },
      { label: 'Cost (USD)', figure: 'cost_usd' },
    ],
  },
];

const aiImpact: Panel[] = [
  { metric: 'ai-impact', title: 'AI-assisted commits', unit: 'ratio', chart: 'number', figure: 'ai_assisted_commits.share' },
  { metric: 'ai-impact', title: 'AI-assisted pull requests', unit: 'ratio', chart: 'number', figure: 'ai_assisted_prs.share' },
  {
    metric: 'ai-impact',
    title: 'Commits',
    unit: 'count',
    chart: 'bar',
    series: [
      { label: 'All', figure: 'commits' },
      { label: 'AI-assisted', figure: 'ai_assisted_commits' },
    ],
  },
  {
    metric: 'ai-impact',
    title: 'Median time to merge',
    unit: 'hours',
    chart: 'line',
    series: [
      { label: 'AI-assisted', figure: 'time_to_merge_hours.ai.median' },
      { label: 'Others', figure: 'time_to_merge_hours.other.median' },
    ],
  },
];

const investment: Panel[] = [
  { metric: 'financial', title: 'People cost', unit: 'money', chart: 'number', figure: 'people_cost.amount' },
  { metric: 'financial', title: 'Capitalizable share', unit: 'ratio', chart: 'number', figure: 'allocation.capitalizable.share' },
  { metric: 'financial', title: 'Expensed share', unit: 'ratio', chart: 'number', figure: 'allocation.expensed.share' },
  { metric: 'financial', title: 'Unallocated share', unit: 'ratio', chart: 'number', figure: 'allocation.unallocated.share' },
];

const cost: Panel[] = [
  { metric: 'financial', title: 'Cost per engineer', unit: 'money', chart: 'number', figure: 'cost_per_engineer' },
  { metric: 'financial', title: 'Cost per merged pull request', unit: 'money', chart: 'number', figure: 'cost_per_merged_pr' },
  { metric: 'financial', title: 'Cost per completed task', unit: 'money', chart: 'number', figure: 'cost_per_completed_task' },
  { metric: 'financial', title: 'AI tools’ spend', unit: 'money', chart: 'number', figure: 'ai.spend' },
];

export const DASHBOARD_TYPES = [
  { key: 'dora', name: 'DORA metrics', description: 'Deployment frequency, lead time for changes, change failure rate, time to restore service and rework, with their DORA bands.', category: 'delivery', panels: dora },
  { key: 'flow', name: 'Flow metrics', description: 'Throughput, lead and cycle time, flow efficiency and work in progress of the tracked work items.', category: 'delivery', panels: flow },
  { key: 'pull_requests', name: 'Pull request insights', description: 'Pull requests opened, merged and closed, and how long they take to merge.', category: 'delivery', panels: pullRequests },
  { key: 'sprint', name: 'Sprint health', description: 'Work completed, reopened and canceled period by period, and what is left unassigned.', category: 'planning', panels: sprint },
  { key: 'collaboration', name: 'Collaboration', description: 'Code review participation, review stages and how widely knowledge is shared.', category: 'people', panels: collaboration },
  { key: 'wellbeing', name: 'Developer wellbeing', description: 'Commit activity and the interactions (reviews, messages, assignments) people carry, period by period.', category: 'people', panels: [commits, commitsByPeriod, interactions] },
  { key: 'activity', name: 'Activity', description: 'Commits, active authors and interactions of the scope.', category: 'people', panels: [commits, commitsByPeriod, ...activeAuthors, interactions] },
  { key: 'ai_usage', name: 'AI usage', description: 'Who uses AI coding tools, how much, and what they cost, tool by tool.', category: 'ai', panels: aiUsage },
  { key: 'ai_impact', name: 'AI impact', description: 'AI-assisted commits and pull requests against the others: how fast they merge.', category: 'ai', panels: aiImpact },
  { key: 'investment', name: 'Investment profile', description: 'Where engineering time goes: capitalizable new capability, expensed upkeep and unallocated time. For admins.', category: 'financial', panels: investment },
  { key: 'cost', name: 'Engineering cost', description: 'What engineering costs per engineer, per merged pull request and per completed task, and the AI tools’ spend. For admins.', category: 'financial', panels: cost },
] as const satisfies readonly DashboardType[];

export type DashboardTypeKey = (typeof DASHBOARD_TYPES)[number]['key'];

/** Whether a dashboard type shows money or people: its panels answer its organization's admins only. */
export const isForAdmins = (type: { panels: readonly Panel[] }) => type.panels.some((p) => p.metric === 'financial');
