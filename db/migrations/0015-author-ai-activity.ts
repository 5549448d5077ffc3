import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * `author_ai_active` on commits: the author used an AI coding tool that UTC day (DESIGN §16), kept by the commit
 * and telemetry writers (src/services/git/authorAiActivity.ts). Commits already stored are marked here from the
 * telemetry's daily rollup, one organization at a time.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('commits', 'author_ai_active', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await markAllCommits(qi);
}

/** Every commit whose author has a daily AI usage row on its day: also what the demo seed runs after writing both. */
export async function markAllCommits(qi: QueryInterface): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const day = mysql ? 'DATE(c.created_at)' : 'date(c.created_at)';
  const active = `SELECT 1 FROM ai_usage_days u WHERE u.organization_id = c.organization_id AND u.user_key = c.author_id AND u.day = ${day}`;
  await qi.sequelize.query(
    mysql
      ? `UPDATE commits c JOIN (SELECT DISTINCT organization_id, user_key, day FROM ai_usage_days WHERE user_key <> '') u
           ON u.organization_id = c.organization_id AND u.user_key = c.author_id AND c.created_at >= u.day AND c.created_at < u.day + INTERVAL 1 DAY
         SET c.author_ai_active = TRUE`
      : `UPDATE commits AS c SET author_ai_active = 1 WHERE c.author_id IS NOT NULL AND EXISTS (${active})`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'commits', 'author_ai_active');
}
