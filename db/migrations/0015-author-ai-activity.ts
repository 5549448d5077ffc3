import { DataTypes, QueryInterface } from 'sequelize';
import { markAllCommits } from '../rollups/commits';
import { dropColumn } from './0004-write-path';

/**
 * `author_ai_active` on commits: the author used an AI coding tool that UTC day (docs/metrics.md#ai-review-and-cost-figures), kept by the commit
 * and telemetry writers (src/services/git/rollups/authorAiActivity.ts). Commits already stored are marked here from the
 * telemetry's daily rollup, one organization at a time.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('commits', 'author_ai_active', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await markAllCommits(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'commits', 'author_ai_active');
}
