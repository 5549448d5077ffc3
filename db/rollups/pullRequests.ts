import { QueryInterface } from 'sequelize';
import { aiPullRequestSql, MEASURES, Measure } from './pullRequestMeasures';
import { emptied } from './emptied';
import { AiCommitRule, aiCommitRuleSql } from './aiEvidence';

/**
 * What the pull request and review writers keep (src/services/git/pullRequests/reviews.ts, pullRequestAi.ts, pullRequestSamples.ts),
 * rebuilt from the stored pull requests, activity and commits: by the migrations that added it (0016, 0017, 0022,
 * 0023, 0028, 0031) and by the demo seed. Who is "someone other than the author" is decided here by the member match
 * alone, which is the review writer's rule for rows without the provider's identities (migration 0031), as the
 * demo's are.
 */

/** From the stored activity. */
export async function fillFirstReviews(qi: QueryInterface): Promise<void> {
  const byOther = "a.pull_request_id = pull_requests.id AND a.kind <> 'commit' AND (a.actor_id IS NULL OR pull_requests.author_id IS NULL OR a.actor_id <> pull_requests.author_id)";
  await qi.sequelize.query(
    `UPDATE pull_requests SET
       first_review_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE ${byOther}),
       first_approval_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE ${byOther} AND a.kind = 'approved')
     WHERE EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id)`,
  );
}

/** From the stored commits (AI-assisted under `rule`) and activity, as the writers keep it then. */
export async function markAiPullRequests(qi: QueryInterface, rule: AiCommitRule): Promise<void> {
  const ai = aiCommitRuleSql(rule, 'c');
  await qi.sequelize.query(
    `UPDATE pull_requests SET has_ai_commit = 1 WHERE
       EXISTS (SELECT 1 FROM commits c WHERE c.repository_id = pull_requests.repository_id AND c.sha IN (pull_requests.head_sha, pull_requests.merge_commit_sha) AND ${ai})
       OR EXISTS (SELECT 1 FROM pull_request_activities a JOIN commits c ON c.repository_id = a.repository_id AND c.sha = SUBSTR(a.external_id, 8)
         WHERE a.pull_request_id = pull_requests.id AND a.kind = 'commit' AND ${ai})`,
  );
}

/** From the stored activity. */
export async function fillPullRequestReviewers(qi: QueryInterface): Promise<void> {
  // As the writer decided it then (by member match; `peer_review` comes with 0023): 0031 decides it again by the
  // provider's identity of both people.
  const byOther = "a.pull_request_id = pull_requests.id AND a.kind <> 'commit' AND (a.actor_id IS NULL OR pull_requests.author_id IS NULL OR a.actor_id <> pull_requests.author_id)";
  await qi.sequelize.query(`UPDATE pull_requests SET
      iterated = CASE WHEN EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id AND a.kind = 'commit' AND a.created_at > pull_requests.created_at) THEN 1 ELSE 0 END,
      sole_reviewer_id = (SELECT CASE WHEN COUNT(DISTINCT a.actor_id) = 1 THEN MIN(a.actor_id) END FROM pull_request_activities a WHERE ${byOther} AND a.actor_id IS NOT NULL)
    WHERE EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id)`);
}

/** From the stored pull requests. */
export async function fillPeerReviews(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(
    'UPDATE pull_request_activities SET pull_request_author_id = (SELECT p.author_id FROM pull_requests p WHERE p.id = pull_request_activities.pull_request_id)',
  );
  await qi.sequelize.query(
    `UPDATE pull_request_activities SET peer_review = CASE WHEN kind <> 'commit' AND (actor_id IS NULL OR pull_request_author_id IS NULL OR actor_id <> pull_request_author_id) THEN 1 ELSE 0 END`,
  );
}

/** From the stored pull requests. */
export async function fillPullRequestSamples(qi: QueryInterface): Promise<void> {
  const bot = await botColumn(qi);
  await emptied(qi, 'pull_request_days', 'pull_request_samples');
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const columns = await qi.describeTable('pull_requests');
  for (const measure of (Object.values(MEASURES) as Measure[]).filter((m) => !m.since || m.since in columns)) {
    const value = measure.sql(mysql);
    await qi.sequelize.query(
      `INSERT INTO pull_request_samples (pull_request_id, measure, repository_id, organization_id, merged_at, ai, band, value${bot.column})
       SELECT p.id, ${measure.id}, p.repository_id, p.organization_id, p.merged_at, ${aiPullRequestSql('p')},
         ${measure.bands.sql(value)}, ${value}${bot.of('p')}
       FROM pull_requests p WHERE p.merged_at IS NOT NULL AND ${value} IS NOT NULL`,
    );
  }
  const day = mysql ? 'DATE(merged_at)' : 'date(merged_at)';
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(
      `INSERT INTO pull_request_days (scope_id, day, measure, ai, band${bot.column}, pull_requests)
       SELECT ${scope}, ${day}, measure, ai, band${bot.column}, COUNT(*) FROM pull_request_samples GROUP BY ${scope}, ${day}, measure, ai, band${bot.column}`,
    );
  }
}

/** From the daily counts. */
export async function fillPullRequestMonths(qi: QueryInterface): Promise<void> {
  const bot = await botColumn(qi);
  await emptied(qi, 'pull_request_months');
  const month = qi.sequelize.getDialect() === 'mysql' ? "DATE_FORMAT(day, '%Y-%m')" : 'substr(day, 1, 7)';
  await qi.sequelize.query(
    `INSERT INTO pull_request_months (scope_id, month, measure, ai, band${bot.column}, pull_requests)
     SELECT scope_id, ${month}, measure, ai, band${bot.column}, SUM(pull_requests) FROM pull_request_days GROUP BY scope_id, ${month}, measure, ai, band${bot.column}`,
  );
}

/** `bot` (db/rollups/botAccounts.ts) once migration 0056 made it, carried from the pull request into its counts; before it, nothing. */
async function botColumn(qi: QueryInterface): Promise<{ column: string; of: (alias: string) => string }> {
  const there = 'bot' in (await qi.describeTable('pull_request_samples'));
  return there ? { column: ', bot', of: (alias) => `, ${alias}.bot` } : { column: '', of: () => '' };
}
