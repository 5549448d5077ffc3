import { QueryInterface } from 'sequelize';

/**
 * What the Metrics API's grouped queries read (docs/metrics.md), each a range of one index:
 * - deployments by finish time, per organization and per repository (the window; a deployment's previous one);
 * - incidents naming a cause, per repository (a deployment blamed by an incident has failed);
 * - pull requests by merge and close time and by state, per organization (the window; what is open now);
 * - tasks by completion time and by status, per team; an organization's interactions with their type;
 * - commits by author and repository (a team's repositories are those its members authored commits in), and
 *   (organization | repository, created_at, author_id), so a window's commits, their distinct authors and the
 *   lead times of the changes a deployment shipped are read from the index alone, never from the rows.
 *   The latter replaces the plain author index, whose queries it serves as well.
 */
const INDEXES: [string, string[]][] = [
  ['deployments', ['organization_id', 'finished_at']],
  ['deployments', ['repository_id', 'finished_at']],
  ['incidents', ['repository_id', 'cause_sha']],
  ['pull_requests', ['organization_id', 'created_at']],
  ['pull_requests', ['organization_id', 'merged_at']],
  ['pull_requests', ['organization_id', 'closed_at']],
  ['pull_requests', ['organization_id', 'state']],
  ['tasks', ['team_id', 'completed_at']],
  ['tasks', ['team_id', 'status']],
  ['commits', ['author_id', 'repository_id']],
  ['commits', ['organization_id', 'created_at', 'author_id']],
  ['commits', ['repository_id', 'created_at', 'author_id']],
  ['interactions', ['organization_id', 'created_at', 'type']],
];

const nameOf = (table: string, fields: string[]) => `${table}_${fields.join('_')}`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, fields] of INDEXES) await qi.addIndex(table, fields, { name: nameOf(table, fields) });
  await qi.removeIndex('commits', 'commits_author_id');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('commits', ['author_id'], { name: 'commits_author_id' });
  for (const [table, fields] of [...INDEXES].reverse()) await qi.removeIndex(table, nameOf(table, fields));
}
