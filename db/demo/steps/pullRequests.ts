import { FIXTURE_PULL_REQUEST_ACTIVITY, FIXTURE_PULL_REQUESTS } from '../fixtures/pullRequests';
import { Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { RepoState, Seeding } from '../state';
import { prTitle, pullRequestSize } from '../text';
import { allocate, END_MS, freeMs, HOUR, laterMs, MINUTE, sortedCreatedAts, toDate } from '../time';

/** Pull requests, streamed repository by repository. */
export async function seedPullRequests({ ins, root, spec }: Seeding, repos: RepoState[]): Promise<void> {
  // Review activity with a stream of its own, written after the pull requests it is on.
  const rngReview = root.fork('pull-request-reviews');
  const activity: Row[] = FIXTURE_PULL_REQUEST_ACTIVITY.map((f) => ({ ...f, created_at: toDate(f.created_at) }));
  const rngPr = root.fork('pull_requests');
  const prShares = allocate(spec.pullRequests, repos.map(() => 0.15 + rngPr.float() ** 2));
  // Sizes and AI marks with a stream of their own: the pull requests are otherwise the same as without them.
  const rngSize = root.fork('pull-request-sizes');
  {
    await ins.stream('pull_requests', async (w) => {
      for (const f of FIXTURE_PULL_REQUESTS) {
        await w.add({ ...f, additions: null, deletions: null, ai_assisted: false, created_at: toDate(f.created_at), merged_at: toDate(f.merged_at), closed_at: toDate(f.closed_at) });
      }
      for (let ri = 0; ri < repos.length; ri++) {
        const repo = repos[ri];
        const g = repo.gitApp;
        const times = sortedCreatedAts(rngPr, prShares[ri], repo.createdMs + HOUR, END_MS, spec.tieChance);
        for (let i = 0; i < times.length; i++) {
          const created = times[i];
          const ageDays = (END_MS - created) / DAY_MS;
          // Old pull requests are rarely still open.
          const state = rngPr.weighted<'open' | 'closed' | 'merged'>([
            ['merged', 70],
            ['closed', 12],
            ['open', ageDays < 30 ? 40 : 6],
          ]);
          const author = g.authors.length > 0 && rngPr.chance(0.95) ? rngPr.pick(g.authors).user : null;
          let mergedAt: Date | null = null;
          let closedAt: Date | null = null;
          if (state === 'merged') {
            mergedAt = new Date(laterMs(rngPr, created, 10 * MINUTE, 21 * DAY_MS));
            closedAt = mergedAt;
          } else if (state === 'closed') {
            closedAt = new Date(laterMs(rngPr, created, 5 * MINUTE, 60 * DAY_MS));
          }
          const id = rngPr.id('pr_');
          await w.add({
            id,
            repository_id: repo.id,
            git_app_id: g.id,
            organization_id: g.org.id,
            number: repo.fixturePrCount + i + 1,
            title: prTitle(rngPr),
            state,
            author_id: author ? author.id : null,
            ...pullRequestSize(rngSize),
            ai_assisted: author !== null && rngSize.chance(spec.telemetry.claudeShare / 2),
            created_at: new Date(created),
            merged_at: mergedAt,
            closed_at: closedAt,
          });
          activity.push(...reviewsOf(rngReview, { id, repo, authorId: author?.id ?? null, createdMs: created, endMs: closedAt?.getTime() ?? END_MS, merged: state === 'merged' }));
        }
      }
    });
  }
  await ins.stream('pull_request_activities', async (w) => {
    for (const row of activity) await w.add(row);
  });
}

/**
 * A pull request's review activity, consistent with it: between its opening and its close, by members of its git
 * app other than its author. Most merged pull requests were approved first, some after changes were asked for and
 * new commits pushed; one in eight went in unreviewed; a few reviewers do most of the reviews.
 */
export function reviewsOf(rng: Random, pr: { id: string; repo: RepoState; authorId: string | null; createdMs: number; endMs: number; merged: boolean }): Row[] {
  const reviewers = pr.repo.gitApp.authors.filter((a) => a.user.id !== pr.authorId);
  if (reviewers.length === 0 || (pr.merged && rng.chance(0.12))) return [];
  const g = pr.repo.gitApp;
  const rows: Row[] = [];
  let at = pr.createdMs;
  const add = (kind: string, actorId: string | null) => {
    const t = freeMs(laterMs(rng, at, 5 * MINUTE, Math.max(10 * MINUTE, (pr.endMs - at) / 3)));
    if (t === undefined || t >= pr.endMs) return;
    at = t;
    rows.push({ id: rng.id('pra_'), pull_request_id: pr.id, repository_id: pr.repo.id, git_app_id: g.id, organization_id: g.org.id, kind, actor_id: actorId, external_id: `demo:${rows.length}`, created_at: new Date(t) });
  };
  // The first reviewers of a repository's list review most: a squared draw favours them.
  const reviewer = () => reviewers[Math.floor(rng.float() ** 2 * reviewers.length)].user.id;
  const first = reviewer();
  for (let i = rng.int(0, 2); i > 0; i--) add('comment', rng.chance(0.8) ? first : reviewer());
  if (rng.chance(0.3)) {
    add('changes_requested', first);
    add('commit', pr.authorId);
  }
  if (pr.merged || rng.chance(0.3)) add('approved', first);
  return rows;
}
