import { AuthorRepository, Commit, GitApp, Repository } from '../../../../db/models';
import type { Transaction } from 'sequelize';
import { toCommit, toRepository } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { CommitInput } from '../activity';
import { authorDirectory, learnAccounts } from '../authors';
import { completeAbbreviatedShas } from './abbreviatedShas';
import { chunks } from '../../people/memberEmails';
import { noteUnmatched } from '../../people/unmatchedAccounts';
import { clip, LIMITS } from '../text';
import { hasAiMarker } from '../../../../db/rollups/aiMarkers';
import { authorDayEvidence, evidenceOf } from '../rollups/aiEvidence';
import { pullRequestsOfCommits } from '../rollups/pullRequestAi';
import { refreshPullRequestBeforeCommit } from '../rollups/pullRequestRollups';
import { earliest, refreshShippedChanges } from '../rollups/shippedChanges';
import { addToCommitDays } from '../rollups/commitDays';
import { addToAuthorDays } from '../rollups/authorDays';
import { refreshLeadTimes } from '../rollups/leadTimes';
import { refreshReversals } from '../rollups/reversals';
import { addWorkDays } from '../../activity/memberActiveYears';

export interface CommitsRecorded {
  added: number;
  /** Commits first seen without line counts (a push) whose counts this change filled in (an import). */
  statsFilled: number;
}

/**
 * Adds the commits the repository does not have yet (unique per repository and sha, so a redelivery or a second
 * import adds nothing) and announces them in one `commit.created` event. Line counts a push could not give are
 * filled in when the same commit comes with them. `abbreviatesShas`: the git app's provider names pull requests'
 * commits by abbreviations (Bitbucket), which these commits complete.
 */
export async function recordCommits(change: Change, gitApp: GitApp, repository: Repository, commits: CommitInput[], abbreviatesShas: boolean): Promise<CommitsRecorded> {
  const { transaction } = change;
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const known = new Map<string, Commit>();
  for (const shas of chunks([...bySha.keys()])) {
    const rows = await Commit.findAll({ where: { repository_id: repository.id, sha: shas }, attributes: ['id', 'sha', 'stats_known'], transaction });
    for (const row of rows) known.set(row.sha, row);
  }

  let statsFilled = 0;
  for (const [sha, row] of known) {
    const stats = bySha.get(sha)!.stats;
    if (row.stats_known || !stats) continue;
    await Commit.update({ ...stats, stats_known: true }, { where: { id: row.id }, transaction });
    statsFilled++;
  }

  const fresh = [...bySha.values()].filter((c) => !known.has(c.sha));
  if (fresh.length === 0) {
    if (statsFilled) change.wrote('commits');
    return { added: 0, statsFilled };
  }
  const authors = await authorDirectory(gitApp, { emails: fresh.map((c) => c.authorEmail), usernames: fresh.map((c) => c.authorUsername) }, transaction);
  const authored = fresh.map((c) => ({ commit: c, authorId: authors.find(c.authorEmail, c.authorUsername), createdAt: c.createdAt }));
  await learnAccounts(change, gitApp, fresh.map((c) => ({ email: c.authorEmail, username: c.authorUsername })), authors);
  const unmatched = authored.flatMap(({ commit: c, authorId }) => (authorId ? [] : [{ account: c.authorUsername ?? c.authorEmail, at: c.createdAt }]));
  await noteUnmatched(transaction, { id: gitApp.id, organizationId: gitApp.organization_id }, 'commit', unmatched);
  const dayEvidence = await authorDayEvidence(transaction, gitApp.organization_id, authored);
  const rows = authored.map(({ commit: c, authorId }) => {
    // The whole message: a trailer may lie past what the column keeps.
    const marked = hasAiMarker(c.message);
    return {
      id: newId('cmt'),
      repository_id: repository.id,
      git_app_id: gitApp.id,
      organization_id: gitApp.organization_id,
      sha: c.sha,
      message: clip(c.message, LIMITS.message),
      author_id: authorId,
      author_name: clip(c.authorName, LIMITS.name),
      additions: c.stats?.additions ?? 0,
      deletions: c.stats?.deletions ?? 0,
      created_at: c.createdAt,
      stats_known: c.stats !== undefined,
      ai_assisted: marked,
      ai_evidence: evidenceOf(marked, dayEvidence, authorId, c.createdAt),
    };
  });
  for (const batch of chunks(rows)) await Commit.bulkCreate(batch, { transaction });
  await recordAuthors(transaction, repository, rows);
  await addToCommitDays(transaction, repository, rows.map((r) => ({ createdAt: r.created_at, commits: 1, evidence: r.ai_evidence })));
  await addToAuthorDays(transaction, repository, rows);
  addWorkDays(change, repository.organization_id, rows.map((r) => ({ userId: r.author_id, at: r.created_at })));
  if (abbreviatesShas) await completeAbbreviatedShas(change, repository.id, rows.map((r) => r.sha));
  const ai = rows.filter((r) => r.ai_evidence !== null);
  for (const shas of chunks(ai.map((r) => r.sha))) {
    for (const id of await pullRequestsOfCommits(transaction, repository.id, shas)) refreshPullRequestBeforeCommit(change, id, { commits: true });
  }
  if (ai.length) await refreshShippedChanges(transaction, repository.id, earliest(ai.map((r) => r.created_at)));
  await refreshLeadTimes(transaction, repository, earliest(rows.map((r) => r.created_at)));
  await refreshReversals(transaction, repository.id, earliest(rows.map((r) => r.created_at)));
  change.wrote('commits');
  change.emit(gitApp.organization_id, 'commit.created', {
    repository: toRepository(repository),
    commits: rows.map((r) => toCommit(r)),
  });
  return { added: rows.length, statsFilled };
}

/** The repository's authors among these commits, each once (a team's repositories are read from them: scope.ts). */
async function recordAuthors(transaction: Transaction, repository: Repository, commits: { author_id: string | null }[]): Promise<void> {
  const authors = [...new Set(commits.flatMap((c) => (c.author_id ? [c.author_id] : [])))].sort();
  const rows = authors.map((user_id) => ({ user_id, repository_id: repository.id, organization_id: repository.organization_id }));
  for (const batch of chunks(rows)) await AuthorRepository.bulkCreate(batch, { ignoreDuplicates: true, transaction });
}
