import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * `has_ai_commit` on pull requests: one of its commits (its head, the commit that merged it, or one pushed while it
 * was open) is AI-assisted (DESIGN §16), kept by the pull request, review, commit and telemetry writers
 * (src/services/git/pullRequestAi.ts), so AI impact and financial figures read no commits per pull request. The
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
  await markAiPullRequests(qi);
}

/** From the stored commits and activity, as the writers keep it then: also what the demo seed runs after writing them. */
export async function markAiPullRequests(qi: QueryInterface): Promise<void> {
  const ai = "(c.ai_assisted = 1 OR c.author_ai_active = 1)";
  await qi.sequelize.query(
    `UPDATE pull_requests SET has_ai_commit = 1 WHERE
       EXISTS (SELECT 1 FROM commits c WHERE c.repository_id = pull_requests.repository_id AND c.sha IN (pull_requests.head_sha, pull_requests.merge_commit_sha) AND ${ai})
       OR EXISTS (SELECT 1 FROM pull_request_activities a JOIN commits c ON c.repository_id = a.repository_id AND c.sha = SUBSTR(a.external_id, 8)
         WHERE a.pull_request_id = pull_requests.id AND a.kind = 'commit' AND ${ai})`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, fields] of [...INDEXES].reverse()) await qi.removeIndex(table, nameOf(table, fields));
  await dropColumn(qi, 'pull_requests', 'has_ai_commit');
}
