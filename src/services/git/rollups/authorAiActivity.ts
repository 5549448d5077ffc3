import { Op, QueryTypes, Transaction } from 'sequelize';
import { Commit } from '../../../../db/models';
import { chunks } from '../../people/memberEmails';
import { refreshPullRequestsOfCommits } from './pullRequestAi';
import { earliest, refreshShippedChanges } from './shippedChanges';
import { addToCommitDays } from './commitDays';

/**
 * Whether a commit's author used an AI coding tool on the commit's UTC day (docs/metrics.md#ai-review-and-cost-figures: such a commit is
 * AI-assisted), kept on the commit (`author_ai_active`) by both writers, whichever comes first: the commit
 * writer looks up its authors' days, and the telemetry writer marks the commits of the days it makes active. Kept,
 * not joined at read time: AI impact reads a year of commits, and a lookup per commit cost seconds.
 */
export interface AuthorDay {
  userId: string;
  /** `YYYY-MM-DD`, UTC */
  day: string;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const key = (userId: string, day: string) => `${userId}\u0000${day}`;

/** Of these authors and days, the ones with AI tool activity in the organization (the telemetry's daily rollup). */
export async function activeAuthorDays(transaction: Transaction, organizationId: string, commits: { authorId: string | null; createdAt: Date }[]): Promise<Set<string>> {
  const authors = [...new Set(commits.flatMap((c) => (c.authorId ? [c.authorId] : [])))];
  if (authors.length === 0) return new Set();
  const days = [...new Set(commits.map((c) => dayOf(c.createdAt)))];
  const rows = await Commit.sequelize!.query<{ user_key: string; day: string | Date }>(
    'SELECT DISTINCT user_key, day FROM ai_usage_days WHERE organization_id = :organizationId AND user_key IN (:authors) AND day IN (:days)',
    { replacements: { organizationId, authors, days }, type: QueryTypes.SELECT, transaction },
  );
  return new Set(rows.map((r) => key(r.user_key, typeof r.day === 'string' ? r.day.slice(0, 10) : dayOf(r.day))));
}

export const isActiveAuthorDay = (active: Set<string>, authorId: string | null, createdAt: Date) => authorId !== null && active.has(key(authorId, dayOf(createdAt)));

/**
 * Marks the organization's commits by these authors on these days, the pull requests that carry them
 * (pullRequestAi.ts) the deployments that shipped them (shippedChanges.ts) and the daily counts (commitDays.ts); how many commits it marked.
 */
export async function markCommitsOfActiveDays(transaction: Transaction, organizationId: string, authorDays: AuthorDay[]): Promise<number> {
  if (authorDays.length === 0) return 0;
  const next = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
  // A day's authors together: one range of the (organization, created_at, author) index a day, where a condition per
  // author and day made MariaDB weigh a thousand alternatives (0.7 s for a vendor's day of 1,100 members).
  const authorsByDay = new Map<string, string[]>();
  for (const { userId, day } of authorDays) {
    const authors = authorsByDay.get(day);
    if (authors) authors.push(userId);
    else authorsByDay.set(day, [userId]);
  }
  const marked = await Commit.findAll({
    attributes: ['id', 'repository_id', 'sha', 'created_at', 'ai_assisted'],
    // Two telemetry requests marking one day at once: the second waits and finds the commits marked, so a commit
    // is counted AI-assisted once in commit_days.
    lock: true,
    where: {
      organization_id: organizationId,
      author_ai_active: false,
      [Op.or]: [...authorsByDay].map(([day, authors]) => ({ created_at: { [Op.gte]: new Date(`${day}T00:00:00Z`), [Op.lt]: next(day) }, author_id: authors })),
    },
    transaction,
  });
  if (marked.length === 0) return 0;
  for (const ids of chunks(marked.map((c) => c.id))) await Commit.update({ author_ai_active: true }, { where: { id: ids }, transaction });
  const byRepository = new Map<string, Commit[]>();
  for (const c of marked) byRepository.set(c.repository_id, [...(byRepository.get(c.repository_id) ?? []), c]);
  for (const [repositoryId, commits] of byRepository) {
    for (const batch of chunks(commits.map((c) => c.sha))) await refreshPullRequestsOfCommits(transaction, repositoryId, batch);
    await refreshShippedChanges(transaction, repositoryId, earliest(commits.map((c) => c.created_at)));
    // A commit already AI-assisted by its mark was counted so when it was added.
    const madeAi = commits.filter((c) => !c.ai_assisted).map((c) => ({ createdAt: c.created_at, commits: 0 as const, ai: true }));
    await addToCommitDays(transaction, { id: repositoryId, organization_id: organizationId }, madeAi);
  }
  return marked.length;
}
