import { DataTypes, QueryInterface } from 'sequelize';
import { AI_EVIDENCE, AiCommitRule, EVIDENCE_COUNTS, fillAiEvidence } from '../rollups/aiEvidence';
import { fillCommitDays, markAllCommits } from '../rollups/commits';
import { markShippedChanges } from '../rollups/deployments';
import { fillPullRequestMonths, fillPullRequestSamples, markAiPullRequests } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * A commit is AI-assisted on evidence only (docs/metrics.md#ai-impact, db/rollups/aiEvidence.ts): `commits.ai_evidence`
 * (`trailer`, `telemetry`, `vendor_lines` or null) takes the place of `author_ai_active`, which any AI activity of the
 * author that day set, a chat included. The stored commits get theirs from their messages and their authors' days as
 * stored, and what was built on AI-assisted commits is built again: the pull requests' `has_ai_commit` and their
 * samples' `ai` split (by day and month), the deployments' `shipped_ai`, and the daily commit counts, which now count
 * each evidence apart. Down brings the old rule back, everything built again under it. Each step can run again.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('commits', 'ai_evidence', { type: DataTypes.STRING(12), allowNull: true });
  for (const evidence of AI_EVIDENCE) await qi.addColumn('commit_days', EVIDENCE_COUNTS[evidence], { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await fillAiEvidence(qi);
  await rebuild(qi, 'evidence');
  if ((await columns(qi, 'commits')).includes('author_ai_active')) await dropColumn(qi, 'commits', 'author_ai_active');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('commits', 'author_ai_active', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await markAllCommits(qi);
  await rebuild(qi, 'activity');
  for (const evidence of AI_EVIDENCE) if ((await columns(qi, 'commit_days')).includes(EVIDENCE_COUNTS[evidence])) await dropColumn(qi, 'commit_days', EVIDENCE_COUNTS[evidence]);
  if ((await columns(qi, 'commits')).includes('ai_evidence')) await dropColumn(qi, 'commits', 'ai_evidence');
}

/** A column dropped only while it is there: a run that failed halfway runs again. */
const columns = async (qi: QueryInterface, table: string) => Object.keys(await qi.describeTable(table));

/** What is built on AI-assisted commits, under `rule`. */
async function rebuild(qi: QueryInterface, rule: AiCommitRule): Promise<void> {
  await qi.sequelize.query('UPDATE pull_requests SET has_ai_commit = 0 WHERE has_ai_commit = 1');
  await markAiPullRequests(qi, rule);
  await fillPullRequestSamples(qi);
  await fillPullRequestMonths(qi);
  await qi.sequelize.query('UPDATE deployments SET shipped_ai = 0 WHERE shipped_ai = 1');
  await markShippedChanges(qi, 'each', rule);
  await fillCommitDays(qi, rule);
}
