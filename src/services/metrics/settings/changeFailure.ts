import { z } from 'zod';
import { MAX_REVERT_HOURS } from '../../../../db/rollups/reverts';

/**
 * What a change failure is (docs/metrics.md#what-a-change-failure-is): which of DORA's causes make a production
 * deployment fail in the change failure rate and failed deployment recovery time. DORA 2024 counts a deployment that
 * needed remediation in production (a rollback, a hotfix, an incident); Datadog's change failure detection reads the
 * same from rollbacks, reverts and hotfix pull requests (docs.datadoghq.com/dora_metrics/change_failure_detection/).
 * A failed deployment job is not in DORA's definition (it never reached production), and stays counted by default,
 * as the figures did before this setting: one setting away.
 */

export const MAX_HOTFIX_PATTERNS = 20;

/** A glob on a pull request's title or a commit's message: `*` any run of characters (lines too), `?` one. */
const hotfixPattern = z
  .string({ error: 'each hotfix pattern must be a glob, e.g. hotfix*' })
  .trim()
  .min(1, { error: 'a hotfix pattern must not be empty' })
  .max(100, { error: 'a hotfix pattern must be at most 100 characters' })
  .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'a hotfix pattern must not hold control characters' })
  .refine((v) => /[^*?]/.test(v), { error: 'a hotfix pattern must say more than * and ?: it would make every later deployment a hotfix' })
  .transform((v) => v.toLowerCase());

export const ChangeFailureSetting = z
  .strictObject(
    {
      failed_deployment: z.boolean({ error: 'change_failure.failed_deployment must be true or false' }),
      incident: z.boolean({ error: 'change_failure.incident must be true or false' }),
      revert_within_hours: z
        .int({ error: `change_failure.revert_within_hours must be a whole number of hours from 1 to ${MAX_REVERT_HOURS}, or null` })
        .min(1, { error: `change_failure.revert_within_hours must be from 1 to ${MAX_REVERT_HOURS} hours (null: reverts and rollbacks are not read)` })
        .max(MAX_REVERT_HOURS, { error: `change_failure.revert_within_hours must be at most ${MAX_REVERT_HOURS} hours (30 days)` })
        .nullable(),
      hotfix_patterns: z
        .array(hotfixPattern, { error: 'change_failure.hotfix_patterns must be a list of globs (empty: hotfixes are not read)' })
        .max(MAX_HOTFIX_PATTERNS, { error: `change_failure.hotfix_patterns takes at most ${MAX_HOTFIX_PATTERNS} globs` })
        .transform((list) => [...new Set(list)]),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `change_failure takes failed_deployment, incident, revert_within_hours and hotfix_patterns, not ${issue.keys.join(', ')}` : 'change_failure must be an object: { failed_deployment, incident, revert_within_hours, hotfix_patterns }') },
  )
  .refine((s) => s.hotfix_patterns.length === 0 || s.revert_within_hours !== null, {
    error: 'change_failure.hotfix_patterns need revert_within_hours: the hours after a deployment in which a hotfix makes it a change failure',
  });
export type ChangeFailureSetting = z.infer<typeof ChangeFailureSetting>;

export const changeFailureSettingsShape = {
  change_failure: ChangeFailureSetting.meta({
    description:
      'What makes a production deployment a change failure (the change failure rate, failed deployment recovery time, AI impact’s and the adoption tiers’ failure rates): `failed_deployment`, its job failed; `incident`, an incident names its commit as the cause; `revert_within_hours` (1 to 720, or null), a later deployment to its repository and environment within that many hours of its finish shipped a revert of a commit it shipped (git’s "This reverts commit <sha>.") or rolled back (deployed a commit deployed before it); `hotfix_patterns`, globs (`*`, `?`, without regard to case) on the title of a pull request merged by, or the message of a commit shipped by, a later deployment within the same hours. Given whole. Default: `{"failed_deployment": true, "incident": true, "revert_within_hours": 24, "hotfix_patterns": []}`.',
  }),
};

export const DEFAULT_CHANGE_FAILURE_SETTINGS: { change_failure: ChangeFailureSetting } = {
  change_failure: { failed_deployment: true, incident: true, revert_within_hours: 24, hotfix_patterns: [] },
};

/**
 * A deployment `d` that is a change failure, and when it was restored, as SQL over what the writers keep on it
 * (`blamed`, `recovered_at`, `reverted_at`: db/rollups/reverts.ts) and, for hotfixes alone, the changes later
 * deployments shipped (`shipped_changes`). `hours(a, b)`: the dialect's hours from a to b.
 */
export function changeFailureSql(setting: ChangeFailureSetting, d: string, hours: (a: string, b: string) => string): { failed: string; restoredAt: string; replacements: Record<string, string> } {
  // Each cause: when it holds, and when what it names restored service (null: not yet), null where it does not hold.
  const causes: { when: string; at: string }[] = [];
  const job = [...(setting.failed_deployment ? [`${d}.status = 'failure'`] : []), ...(setting.incident ? [`${d}.blamed = 1`] : [])];
  if (job.length) {
    const when = `(${job.join(' OR ')})`;
    causes.push({ when, at: `(CASE WHEN ${when} THEN ${d}.recovered_at END)` });
  }
  const within = setting.revert_within_hours;
  const replacements: Record<string, string> = {};
  if (within !== null) {
    const at = `(CASE WHEN ${hours(`${d}.finished_at`, `${d}.reverted_at`)} <= ${within} THEN ${d}.reverted_at END)`;
    causes.push({ when: `${at} IS NOT NULL`, at });
    if (setting.hotfix_patterns.length) {
      const matches = setting.hotfix_patterns.flatMap((pattern, i) => {
        replacements[`hotfix_pattern_${i}`] = likePattern(pattern);
        return [`LOWER(hc.message) LIKE :hotfix_pattern_${i} ESCAPE '!'`, `LOWER(hp.title) LIKE :hotfix_pattern_${i} ESCAPE '!'`];
      });
      // The first later success of its environment within the hours whose changes hold a hotfix: a commit's own
      // message, or the title of the pull request it merged.
      const hotfixAt = `(CASE WHEN ${d}.status = 'success' THEN (SELECT MIN(h.finished_at) FROM deployments h
          JOIN shipped_changes hs ON hs.deployment_id = h.id
          JOIN commits hc ON hc.id = hs.commit_id
          LEFT JOIN pull_requests hp ON hp.repository_id = hc.repository_id AND hp.merge_commit_sha = hc.sha
        WHERE h.repository_id = ${d}.repository_id AND LOWER(h.environment) = LOWER(${d}.environment) AND h.status = 'success'
          AND h.finished_at > ${d}.finished_at AND ${hours(`${d}.finished_at`, 'h.finished_at')} <= ${within} AND (${matches.join(' OR ')})) END)`;
      causes.push({ when: `${hotfixAt} IS NOT NULL`, at: hotfixAt });
    }
  }
  if (!causes.length) return { failed: '1 = 0', restoredAt: 'NULL', replacements };
  const failed = `(${causes.map((c) => c.when).join(' OR ')})`;
  // The earliest restoration among the causes that hold: the one that restored service first.
  const restoredAt = causes.map((c) => c.at).reduce((a, b) => `(CASE WHEN ${a} IS NULL THEN ${b} WHEN ${b} IS NULL OR ${a} <= ${b} THEN ${a} ELSE ${b} END)`);
  return { failed, restoredAt, replacements };
}

/** A glob as a LIKE pattern, as document.ts makes them for environments (imported from there, it would be a cycle). */
const likePattern = (glob: string) => glob.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%').replace(/\?/g, '_');
