import { Op, QueryTypes, Transaction } from 'sequelize';
import { Commit } from '../../../../db/models';
import { AI_EVIDENCE, AiEvidence, otlpCodeSql, vendorLinesSql } from '../../../../db/rollups/aiEvidence';
import { chunks } from '../../people/memberEmails';
import { refreshPullRequestsOfCommits } from './pullRequestAi';
import { earliest, refreshShippedChanges } from './shippedChanges';
import { addToCommitDays } from './commitDays';

/**
 * Why a commit is AI-assisted (docs/metrics.md#ai-impact: its message's mark, or its author's day showing code a tool
 * wrote, by OTLP telemetry or a vendor's lines; db/rollups/aiEvidence.ts), kept on the commit (`ai_evidence`) by
 * every writer whose rows decide it, whichever comes first: the commit writer looks up its authors' days, and the
 * telemetry and vendor writers weigh again the commits of the days they moved. Kept, not joined at read time: AI
 * impact reads a year of commits, and a lookup per commit cost seconds.
 */
export interface AuthorDay {
  userId: string;
  /** `YYYY-MM-DD`, UTC */
  day: string;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const dayText = (day: string | Date) => (typeof day === 'string' ? day.slice(0, 10) : dayOf(day));
const key = (userId: string, day: string) => `${userId}\u0000${day}`;
const stronger = (a: AiEvidence | null, b: AiEvidence | null) => (a === null ? b : b === null ? a : AI_EVIDENCE.indexOf(a) <= AI_EVIDENCE.indexOf(b) ? a : b);

/** The evidence each of these commits' authors' days shows, by author and day (none: not listed). */
export type DayEvidence = Map<string, AiEvidence>;

/** Of these authors and days, the evidence of code AI tools wrote: OTLP's lines or commits, a vendor's lines. */
export async function authorDayEvidence(transaction: Transaction, organizationId: string, commits: { authorId: string | null; createdAt: Date }[]): Promise<DayEvidence> {
  const authors = [...new Set(commits.flatMap((c) => (c.authorId ? [c.authorId] : [])))];
  const found: DayEvidence = new Map();
  if (authors.length === 0) return found;
  const days = [...new Set(commits.map((c) => dayOf(c.createdAt)))];
  // A locking read sees what a concurrent usage or commit writer committed while this change waited for it (a plain
  // read on MariaDB sees the change's first snapshot), so the later of two writers weighs both; a deadlock between
  // them is a lost race, and that change runs again.
  const locking = Commit.sequelize!.getDialect() === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const read = (sql: string) =>
    Commit.sequelize!.query<{ user_key: string; day: string | Date }>(sql + locking, { replacements: { organizationId, authors, days }, type: QueryTypes.SELECT, transaction });
  const [telemetry, vendors] = await Promise.all([
    read(`SELECT DISTINCT e.user_key, e.day FROM ai_usage_days e WHERE e.organization_id = :organizationId AND e.user_key IN (:authors) AND e.day IN (:days) AND ${otlpCodeSql('e')}`),
    read(`SELECT DISTINCT e.user_key, e.day FROM ai_vendor_days e WHERE e.organization_id = :organizationId AND e.user_key IN (:authors) AND e.day IN (:days) AND ${vendorLinesSql('e')}`),
  ]);
  for (const [evidence, rows] of [['vendor_lines', vendors], ['telemetry', telemetry]] as const) for (const r of rows) found.set(key(r.user_key, dayText(r.day)), evidence);
  return found;
}

/** A commit's evidence: its message's mark, else its author's day's. */
export const evidenceOf = (marked: boolean, days: DayEvidence, authorId: string | null, createdAt: Date): AiEvidence | null =>
  stronger(marked ? 'trailer' : null, authorId === null ? null : (days.get(key(authorId, dayOf(createdAt))) ?? null));

/**
 * Weighs again the organization's unmarked commits by these authors on these days, after their usage moved (found
 * or, a vendor's day pulled again, lost); where one becomes AI-assisted or stops being, the pull requests that carry
 * it (pullRequestAi.ts), the deployments that shipped it (shippedChanges.ts) are recomputed, and the daily counts
 * (commitDays.ts) move. How many commits changed evidence.
 */
export async function weighCommitsOfDays(transaction: Transaction, organizationId: string, authorDays: AuthorDay[]): Promise<number> {
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
  const commits = await Commit.findAll({
    attributes: ['id', 'repository_id', 'sha', 'author_id', 'created_at', 'ai_evidence'],
    // Two writers weighing one day at once: the second waits, then weighs from the first's outcome, so a commit's
    // evidence moves the daily counts once.
    lock: true,
    where: {
      organization_id: organizationId,
      // A marked commit's evidence is its trailer, whatever its day shows.
      ai_assisted: false,
      [Op.or]: [...authorsByDay].map(([day, authors]) => ({ created_at: { [Op.gte]: new Date(`${day}T00:00:00Z`), [Op.lt]: next(day) }, author_id: authors })),
    },
    transaction,
  });
  if (commits.length === 0) return 0;
  const days = await authorDayEvidence(transaction, organizationId, commits.map((c) => ({ authorId: c.author_id, createdAt: c.created_at })));
  const changed = commits.flatMap((c) => {
    const evidence = evidenceOf(false, days, c.author_id, c.created_at);
    return evidence === c.ai_evidence ? [] : [{ commit: c, evidence, before: c.ai_evidence }];
  });
  for (const evidence of [...AI_EVIDENCE, null]) {
    const ids = changed.filter((c) => c.evidence === evidence).map((c) => c.commit.id);
    for (const batch of chunks(ids)) await Commit.update({ ai_evidence: evidence }, { where: { id: batch }, transaction });
  }
  const byRepository = new Map<string, typeof changed>();
  for (const c of changed) byRepository.set(c.commit.repository_id, [...(byRepository.get(c.commit.repository_id) ?? []), c]);
  for (const [repositoryId, moved] of byRepository) {
    // From one evidence to another, a commit stays AI-assisted: only its count moves.
    const flipped = moved.filter((c) => (c.evidence === null) !== (c.before === null)).map((c) => c.commit);
    for (const batch of chunks(flipped.map((c) => c.sha))) await refreshPullRequestsOfCommits(transaction, repositoryId, batch);
    if (flipped.length) await refreshShippedChanges(transaction, repositoryId, earliest(flipped.map((c) => c.created_at)));
    await addToCommitDays(
      transaction,
      { id: repositoryId, organization_id: organizationId },
      moved.map((c) => ({ createdAt: c.commit.created_at, commits: 0 as const, evidence: c.evidence, before: c.before })),
    );
  }
  return changed.length;
}
