/**
 * Git activity in the domain's words, whatever brought it (a GitHub or GitLab delivery, a clone's `git log`).
 * The ingest transports translate provider payloads into these; the git writers store them (docs/ingest.md).
 */
import type { IncidentUrgency } from '../../../db/vocabulary';

/** A repository as a provider names it. Found by `providerId` first, then by `fullName` (an imported clone). */
export interface RepositoryRef {
  providerId: string | null;
  name: string;
  fullName: string;
  /** Null when the delivery does not say (Bitbucket's): the stored one stays, `main` for a new repository. */
  defaultBranch: string | null;
  isPrivate: boolean;
  /** The provider's creation time; first sight when unknown. */
  createdAt: Date | null;
}

export interface CommitInput {
  sha: string;
  message: string;
  authorName: string;
  authorEmail: string | null;
  /** The provider's user name of the author, a second way to find the member (their git app binding). */
  authorUsername: string | null;
  createdAt: Date;
  /** Absent when the source has no line counts (push payloads). */
  stats?: { additions: number; deletions: number };
}

export type PullRequestState = 'open' | 'closed' | 'merged';

export interface PullRequestInput {
  number: number;
  title: string;
  state: PullRequestState;
  authorUsername: string | null;
  /** The provider's own id of its author (GitHub's or GitLab's user id): who is the author, member or not. */
  authorProviderId: string | null;
  /** Its description, read for an AI tool's mark and not stored; null when the provider sent none. */
  body: string | null;
  /** Lines, when the delivery counts them (GitHub's pull_request events; not GitLab's). */
  size: { additions: number; deletions: number } | null;
  /**
   * Its head commit and the commit that landed it, when the delivery names them: full 40-digit shas, or
   * Bitbucket's first 12 digits, completed from the repository's commits (commits/abbreviatedShas.ts).
   */
  commits: { head: string | null; merge: string | null };
  createdAt: Date;
  mergedAt: Date | null;
  closedAt: Date | null;
  /** The provider's time of this state: an older delivery arriving later changes nothing. */
  updatedAt: Date;
  /** A draft, as the delivery shows it; absent or null when it does not say (an issue comment's view, Bitbucket's). */
  draft?: boolean | null;
  /**
   * When it became ready for review, when the delivery is that change (GitHub's `ready_for_review`, GitLab's draft
   * turned off) or the importer read it; absent or null otherwise, and the time stored stays.
   */
  readyForReviewAt?: Date | null;
}

export interface DeploymentInput {
  externalId: string;
  environment: string;
  status: 'success' | 'failure';
  sha: string;
  createdAt: Date;
  finishedAt: Date;
}

export interface IncidentInput {
  externalId: string;
  title: string;
  causeSha: string | null;
  /** The commit that fixed it: the deployment that shipped it is rework (docs/metrics.md#dora-the-four-keys-method). */
  fixSha: string | null;
  createdAt: Date;
  resolvedAt: Date | null;
  updatedAt: Date;
  /**
   * What an incident tool says of it (docs/incidents.md#what-is-stored), for what counts in time to restore: left
   * out where the source says nothing of it (a git provider's issue), and then what an earlier event said stays.
   */
  urgency?: IncidentUrgency;
  priority?: string;
  service?: string;
}

export type ReviewActivityKind = 'comment' | 'approved' | 'changes_requested' | 'commit';

/** A review, approval, comment or pushed commit on a pull request (docs/metrics.md#ai-review-and-cost-figures). */
export interface ReviewActivityInput {
  /** The provider's id of what happened, unique per pull request: `review:<id>`, `note:<id>`, `commit:<sha>`, … */
  externalId: string;
  kind: ReviewActivityKind;
  actorUsername: string | null;
  /** The provider's own id of who acted, compared with the pull request's author's (git/pullRequests/peerReviews.ts). */
  actorProviderId: string | null;
  createdAt: Date;
  /**
   * A pushed commit known only as the pull request's new head (Bitbucket's `pullrequest:updated`, sent for an edit
   * as for a push): activity only when that head differs from the one stored.
   */
  onlyIfHeadMoved?: boolean;
}

export type RepositoryAction = 'created' | 'updated' | 'deleted';

export type Activity =
  /** `truncated`: the provider listed only some of the push's commits (Bitbucket lists at most 5 per branch). */
  | { kind: 'push'; repository: RepositoryRef; commits: CommitInput[]; truncated?: boolean }
  | { kind: 'repository'; action: RepositoryAction; repository: RepositoryRef }
  | { kind: 'pull_request'; repository: RepositoryRef; pullRequest: PullRequestInput }
  /**
   * Activity on a pull request, with the pull request as the delivery shows it: recorded as any pull request
   * delivery when `pullRequestCurrent`, else (an issue comment's view of it, which cannot tell merged from closed)
   * only to create one not stored yet.
   */
  | { kind: 'review'; repository: RepositoryRef; pullRequest: PullRequestInput; pullRequestCurrent: boolean; review: ReviewActivityInput }
  | { kind: 'deployment'; repository: RepositoryRef; deployment: DeploymentInput }
  | { kind: 'incident'; repository: RepositoryRef; incident: IncidentInput };

/** What a delivery did, for its answer and for the logs. */
export interface Outcome {
  result: 'applied' | 'duplicate';
  repository_id?: string;
  repository_created?: boolean;
  commits_added?: number;
  [detail: string]: unknown;
}
