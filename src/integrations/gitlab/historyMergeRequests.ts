/**
 * A project's merge requests with their notes and approvals (docs/history.md): each listing page's merge requests,
 * then each one's notes a page at a time, then its approvals. Only the listing page's last part carries the cursor
 * past it; the parts before carry the page's own, so a run stopped among them reads that page again (its writes
 * are idempotent).
 */
import type { Activity, PullRequestInput, RepositoryRef } from '../../services/git/activity';
import type { HistoryPage, HistoryWindow } from '../../services/history/historySource';
import { GitlabApi, GitlabNotFound, PER_PAGE } from './historyApi';
import { ApiUser, approvalNoted, approvalReview, approvalsAnswer, mergeRequestFields, noteActivity, read } from './historyItems';
import { ListedAnswer, updatedListing } from './historyListing';

interface Project {
  id: number;
  name: string;
  repository: RepositoryRef;
  hookProject: Record<string, unknown>;
}

export async function* mergeRequestPages(api: GitlabApi, project: Project, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage> {
  const listing = updatedListing((query) => api.mergeRequests.all({ projectId: project.id, ...query }), window, cursor, `GitLab ${project.name}: merge requests`);
  for await (const page of listing) {
    yield* lastCarries(page.next, page.at, listingParts(api, project, page.items, page.read));
  }
}

/** The parts of one listing page, in order: its merge requests, then each one's notes and approvals. */
async function* listingParts(api: GitlabApi, project: Project, items: unknown[], read: number): AsyncGenerator<Omit<HistoryPage, 'next'>> {
  const mergeRequests = items.map((item) => {
    const what = `GitLab ${project.name}: a merge request`;
    return { ...mergeRequestFields(item, what), what };
  });
  yield { read, activities: mergeRequests.map(({ pullRequest }): Activity => ({ kind: 'pull_request', repository: project.repository, pullRequest })) };
  for (const mr of mergeRequests) {
    const what = `GitLab ${project.name}: merge request !${mr.pullRequest.number}`;
    const approvedAt = new Map<string, { approver: ApiUser; at: Date }>();
    for (let page: number | null = 1; page !== null; ) {
      const answer: ListedAnswer = await api.notes.all(project.id, mr.pullRequest.number, { sort: 'asc', orderBy: 'created_at', page, perPage: PER_PAGE, showExpanded: true });
      const activities: Activity[] = [];
      for (const note of answer.data) {
        const comment = noteActivity(note, project.hookProject, mr.hookFields, `${what}: a note`);
        if (comment) activities.push(comment);
        // Notes come oldest first: an approval given, withdrawn and given again is kept at its first.
        const approval = approvalNoted(note);
        if (approval && !approvedAt.has(approval.approver.username)) approvedAt.set(approval.approver.username, approval);
      }
      if (activities.length) yield { read: 0, activities };
      page = answer.paginationInfo.next;
    }
    const approvals = await approvalActivities(api, project, mr.pullRequest, approvedAt, what);
    if (approvals.length) yield { read: 0, activities: approvals };
  }
}

/**
 * Who approved, as the hooks would have told it: each approval's system note (GitLab writes one for every approval,
 * with its time), and those the approvals endpoint names now without a note read (its answer has no time: the merge
 * request's update time stands for it, which an approval's note moves, so the approval was no later). A GitLab
 * without that endpoint (404) has the notes only.
 */
async function approvalActivities(api: GitlabApi, project: Project, pullRequest: PullRequestInput, approvedAt: Map<string, { approver: ApiUser; at: Date }>, what: string): Promise<Activity[]> {
  let current: unknown = null;
  try {
    current = await api.approvals.showConfiguration(project.id, { mergerequestIId: pullRequest.number });
  } catch (err) {
    if (!(err instanceof GitlabNotFound)) throw err;
  }
  for (const { user } of current === null ? [] : (read(approvalsAnswer, current, `${what}: approvals`).approved_by ?? [])) {
    if (!approvedAt.has(user.username)) approvedAt.set(user.username, { approver: user, at: pullRequest.updatedAt });
  }
  return [...approvedAt.values()].map(({ approver, at }) => ({ kind: 'review', repository: project.repository, pullRequest, pullRequestCurrent: false, review: approvalReview(approver, at) }));
}

/** The parts as pages: each carries `at` (its listing page again) but the last, which carries `next`. */
async function* lastCarries(next: string | null, at: string, parts: AsyncGenerator<Omit<HistoryPage, 'next'>>): AsyncGenerator<HistoryPage> {
  let held: Omit<HistoryPage, 'next'> | null = null;
  for await (const part of parts) {
    if (held) yield { ...held, next: at };
    held = part;
  }
  if (held) yield { ...held, next };
}
