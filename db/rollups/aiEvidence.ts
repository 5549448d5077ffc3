import { QueryInterface } from 'sequelize';

/**
 * What makes a commit AI-assisted (docs/metrics.md#ai-impact): evidence that a tool wrote code of it, never mere use
 * of a tool that day (a chat, a prompt, a session that changed nothing). Strongest first, and a commit keeps its
 * strongest (`commits.ai_evidence`):
 * - `trailer`: its message carries a tool's mark (aiMarkers.ts), evidence about this very commit;
 * - `telemetry`: its author's OTLP telemetry of its UTC day reports lines the tool changed or commits it made;
 * - `vendor_lines`: a vendor's API (Copilot, Cursor, Claude Code's analytics) reports lines its author accepted or
 *   added with the tool that UTC day.
 * Read by the writers (src/services/git/rollups/aiEvidence.ts), the migration that brought the rule in (0053) and the demo seed.
 */
export const AI_EVIDENCE = ['trailer', 'telemetry', 'vendor_lines'] as const;
export type AiEvidence = (typeof AI_EVIDENCE)[number];

/** The commit_days column that counts each evidence's commits. */
export const EVIDENCE_COUNTS: Record<AiEvidence, string> = { trailer: 'trailer_commits', telemetry: 'telemetry_commits', vendor_lines: 'vendor_lines_commits' };

/**
 * The rule the rollups built on AI-assisted commits were kept under: `activity`, a mark or any AI activity of the
 * author that day (migrations 0015 to 0052, and 0053's down); `evidence` from 0053 on.
 */
export type AiCommitRule = 'activity' | 'evidence';

/** Commit `c` is AI-assisted under the rule. */
export const aiCommitRuleSql = (rule: AiCommitRule, c: string) => (rule === 'activity' ? `(${c}.ai_assisted = 1 OR ${c}.author_ai_active = 1)` : `${c}.ai_evidence IS NOT NULL`);

/** A daily rollup row (`ai_usage_days` of OTLP, or `ai_vendor_days`) that shows code the tool changed. */
export const otlpCodeSql = (u: string) => `${u}.source = 'otlp' AND (${u}.lines_added > 0 OR ${u}.lines_removed > 0 OR ${u}.commits > 0)`;
export const vendorLinesSql = (v: string) => `(${v}.lines_added > 0 OR ${v}.lines_removed > 0)`;

/** Every stored commit's evidence, from its message's mark and its author's days as stored; weakest written first. */
export async function fillAiEvidence(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('UPDATE commits SET ai_evidence = NULL WHERE ai_evidence IS NOT NULL');
  await markDays(qi, 'vendor_lines', 'ai_vendor_days', vendorLinesSql('e'));
  await markDays(qi, 'telemetry', 'ai_usage_days', otlpCodeSql('e'));
  await qi.sequelize.query("UPDATE commits SET ai_evidence = 'trailer' WHERE ai_assisted = 1");
}

/** Marks the commits whose author's day has a row `e` of `table` that `shows` evidence. */
async function markDays(qi: QueryInterface, evidence: AiEvidence, table: string, shows: string): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  // MariaDB joins the few evidence days to the commits' (organization, created_at, author) index, as 0015 did.
  await qi.sequelize.query(
    mysql
      ? `UPDATE commits c JOIN (SELECT DISTINCT e.organization_id, e.user_key, e.day FROM ${table} e WHERE e.user_key <> '' AND ${shows}) d
           ON d.organization_id = c.organization_id AND d.user_key = c.author_id AND c.created_at >= d.day AND c.created_at < d.day + INTERVAL 1 DAY
         SET c.ai_evidence = :evidence`
      : `UPDATE commits AS c SET ai_evidence = :evidence WHERE c.author_id IS NOT NULL
           AND EXISTS (SELECT 1 FROM ${table} e WHERE e.organization_id = c.organization_id AND e.user_key = c.author_id AND e.day = date(c.created_at) AND ${shows})`,
    { replacements: { evidence } },
  );
}
