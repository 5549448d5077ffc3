import { QueryInterface, QueryTypes } from 'sequelize';

/**
 * The dashboard catalog as the service defines it (src/services/dashboards/catalog.ts, docs/dashboards.md): every
 * database has it, not only the demo's, and it covers every metric (activity, AI usage and AI impact added); the
 * descriptions say what the panels show. Written here as it was at this migration, as migrations are.
 */
interface Entry {
  key: string;
  name: string;
  description: string;
  category: string;
}

const CATALOG: Entry[] = [
  { key: 'dora', name: 'DORA metrics', description: 'Deployment frequency, lead time for changes, change failure rate, time to restore service and rework, with their DORA bands.', category: 'delivery' },
  { key: 'flow', name: 'Flow metrics', description: 'Throughput, lead and cycle time, flow efficiency and work in progress of the tracked work items.', category: 'delivery' },
  { key: 'pull_requests', name: 'Pull request insights', description: 'Pull requests opened, merged and closed, and how long they take to merge.', category: 'delivery' },
  { key: 'sprint', name: 'Sprint health', description: 'Work completed, reopened and canceled period by period, and what is left unassigned.', category: 'planning' },
  { key: 'collaboration', name: 'Collaboration', description: 'Code review participation, review stages and how widely knowledge is shared.', category: 'people' },
  { key: 'wellbeing', name: 'Developer wellbeing', description: 'Commit activity and the interactions (reviews, messages, assignments, meetings) people carry, period by period.', category: 'people' },
  { key: 'activity', name: 'Activity', description: 'Commits, active authors and interactions of the scope.', category: 'people' },
  { key: 'ai_usage', name: 'AI usage', description: 'Who uses AI coding tools, how much, and what they cost, tool by tool.', category: 'ai' },
  { key: 'ai_impact', name: 'AI impact', description: 'AI-assisted commits and pull requests against the others: how fast they merge.', category: 'ai' },
  { key: 'investment', name: 'Investment profile', description: 'Where engineering time goes: capitalizable new capability, expensed upkeep and unallocated time. For admins.', category: 'financial' },
  { key: 'cost', name: 'Engineering cost', description: 'What engineering costs per engineer, per merged pull request and per completed task, and the AI tools’ spend. For admins.', category: 'financial' },
];

/** The demo's catalog before this migration: what going down restores. */
const DEMO_BEFORE: Entry[] = [
  { key: 'dora', name: 'DORA metrics', description: 'Deployment frequency, lead time for changes, change failure rate and time to restore service.', category: 'delivery' },
  { key: 'flow', name: 'Flow metrics', description: 'Flow velocity, time, efficiency and load of work items across the value stream.', category: 'delivery' },
  { key: 'pull_requests', name: 'Pull request insights', description: 'Pull request size, cycle time, review depth and merge rate per repository and team.', category: 'delivery' },
  { key: 'sprint', name: 'Sprint health', description: 'Planned versus completed work, scope change and carry-over for each sprint.', category: 'planning' },
  { key: 'collaboration', name: 'Collaboration', description: 'Code review participation, communication patterns and knowledge sharing between people and teams.', category: 'people' },
  { key: 'wellbeing', name: 'Developer wellbeing', description: 'Meeting load, focus time and after-hours activity, aggregated per team.', category: 'people' },
  { key: 'investment', name: 'Investment profile', description: 'Where engineering effort goes: new features, maintenance, bugs and unplanned work.', category: 'financial' },
  { key: 'cost', name: 'Engineering cost', description: 'Estimated cost of engineering work per initiative, team and repository.', category: 'financial' },
];

async function write(qi: QueryInterface, entries: Entry[], insertMissing: boolean): Promise<void> {
  const rows = await qi.sequelize.query<{ key: string }>('SELECT `key` FROM dashboard_catalog', { type: QueryTypes.SELECT });
  const present = new Set(rows.map((r) => r.key));
  for (const { key, ...fields } of entries.filter((e) => present.has(e.key))) await qi.bulkUpdate('dashboard_catalog', fields, { key });
  const missing = entries.filter((e) => !present.has(e.key));
  if (insertMissing && missing.length) await qi.bulkInsert('dashboard_catalog', missing);
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await write(qi, CATALOG, true);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const added = CATALOG.filter((e) => !DEMO_BEFORE.some((d) => d.key === e.key)).map((e) => e.key);
  await qi.bulkDelete('dashboard_catalog', { key: added });
  // Only the demo wrote a catalog before: a database without one keeps its rows of the first eight.
  await write(qi, DEMO_BEFORE, false);
}
