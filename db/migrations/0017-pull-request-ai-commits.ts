import { DataTypes, QueryInterface } from 'sequelize';
import { markAiPullRequests } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * `has_ai_commit` on pull requests: one of its commits (its head, the commit that merged it, or one pushed while it
 * was open) is AI-assisted (docs/metrics.md#ai-review-and-cost-figures), kept by the pull request, review, commit and telemetry writers
 * (src/services/git/rollups/pullRequestAi.ts), so AI impact and financial figures read no commits per pull request. The
 * indexes find a commit's pull requests when it arrives or becomes AI-assisted. Pull requests already stored get
 * theirs here.
 */
const INDEXES: [string, string[]][] = [
  ['pull_requests', ['repository_id', 'head_sha']],
  ['pull_requests', ['repository_id', 'merge_commit_sha']],
  ['pull_request_activities', ['repository_id', 'external_id']],
];
const nameOf = (table: string, fields: string[]) => `${table}_${fields.join('_')}`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('pull_requests', 'has_ai_commit', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  for (const [table, fields] of INDEXES) await qi.addIndex(table, fields, { name: nameOf(table, fields) });
  await markAiPullRequests(qi, 'activity');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, fields] of [...INDEXES].reverse()) await qi.removeIndex(table, nameOf(table, fields));
  await dropColumn(qi, 'pull_requests', 'has_ai_commit');
}
