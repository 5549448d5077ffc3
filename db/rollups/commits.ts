import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';
import { AI_EVIDENCE, AiCommitRule, aiCommitRuleSql, EVIDENCE_COUNTS } from './aiEvidence';

/**
 * What the commit writers keep beside the commits (src/services/git/rollups/authorAiActivity.ts, commits.ts, commitDays.ts),
 * rebuilt from the stored commits and telemetry: by the migrations that added them (0015, 0018, 0020) and by the demo
 * seed after it writes its rows.
 */

/** Every commit whose author has a daily AI usage row on its day. */
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

/** From the stored commits. */
export async function fillAuthorRepositories(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'author_repositories');
  await qi.sequelize.query(
    `INSERT INTO author_repositories (user_id, repository_id, organization_id)
     SELECT DISTINCT author_id, repository_id, organization_id FROM commits WHERE author_id IS NOT NULL`,
  );
}

/** From the stored commits, AI-assisted under `rule` (under `evidence`, each evidence's count too: 0053 on). */
export async function fillCommitDays(qi: QueryInterface, rule: AiCommitRule): Promise<void> {
  await emptied(qi, 'commit_days');
  const day = qi.sequelize.getDialect() === 'mysql' ? 'DATE(c.created_at)' : 'date(c.created_at)';
  const count = (condition: string) => `SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  const [columns, counts] =
    rule === 'evidence' ? [AI_EVIDENCE.map((e) => `, ${EVIDENCE_COUNTS[e]}`).join(''), AI_EVIDENCE.map((e) => `, ${count(`c.ai_evidence = '${e}'`)}`).join('')] : ['', ''];
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(
      `INSERT INTO commit_days (scope_id, day, commits, ai_commits${columns})
       SELECT c.${scope}, ${day}, COUNT(*), ${count(aiCommitRuleSql(rule, 'c'))}${counts} FROM commits c GROUP BY c.${scope}, ${day}`,
    );
  }
}
