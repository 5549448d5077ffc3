import { z } from 'zod';
import type { Activity, CommitInput, PullRequestInput, PullRequestState, RepositoryRef, ReviewActivityInput, ReviewActivityKind } from '../../services/git/activity';
import { eventBodies, nullableText, nullableTime, providerId, pullRequestNumber, readPayload, text, time } from '../common/payload';
import { optionalProviderTime, providerTime } from '../common/times';

/** `X-Event-Key` values this service stores (docs/ingest.md#bitbucket-cloud); any other is acknowledged and ignored. */
export const BITBUCKET_EVENTS = [
  'repo:push',
  'repo:updated',
  'repo:deleted',
  'pullrequest:created',
  'pullrequest:updated',
  'pullrequest:fulfilled',
  'pullrequest:rejected',
  'pullrequest:approved',
  'pullrequest:unapproved',
  'pullrequest:changes_request_created',
  'pullrequest:comment_created',
] as const;
export type BitbucketEvent = (typeof BITBUCKET_EVENTS)[number];

const PULL_REQUEST_FIELDS = ['actor', 'repository', 'pullrequest'] as const;

/**
 * The top-level fields of each stored event's body, as Atlassian's event-payloads page lists them and every capture in
 * test/support/peers/bitbucket shows them (no capture holds another); `repo:deleted`'s, the repository and the actor,
 * as the third-party clients that read it parse it (test/support/peers/bitbucket/README.md). They tell one event's
 * body from another's.
 */
const BITBUCKET_BODY_FIELDS: Record<BitbucketEvent, readonly string[]> = {
  'repo:push': ['actor', 'repository', 'push'],
  'repo:updated': ['actor', 'repository', 'changes'],
  'repo:deleted': ['actor', 'repository'],
  'pullrequest:created': PULL_REQUEST_FIELDS,
  'pullrequest:updated': PULL_REQUEST_FIELDS,
  'pullrequest:fulfilled': PULL_REQUEST_FIELDS,
  'pullrequest:rejected': PULL_REQUEST_FIELDS,
  'pullrequest:approved': [...PULL_REQUEST_FIELDS, 'approval'],
  'pullrequest:unapproved': [...PULL_REQUEST_FIELDS, 'approval'],
  'pullrequest:changes_request_created': [...PULL_REQUEST_FIELDS, 'changes_request'],
  'pullrequest:comment_created': [...PULL_REQUEST_FIELDS, 'comment'],
};
const bodyOf = eventBodies(BITBUCKET_BODY_FIELDS);

/**
 * A Bitbucket account. Its Atlassian `account_id` is the name bound to a member on the git app: since 2019 Bitbucket
 * sends no `username`, and its `nickname` is a display name that two people may share. `uuid` (`{…}`) says who
 * acted, member or not.
 */
export const account = z.looseObject({ uuid: providerId.nullish(), account_id: z.string().min(1).max(200).nullish() });
export type Account = z.infer<typeof account>;
const accountName = (a: Account | null | undefined) => a?.account_id ?? null;
const accountId = (a: Account | null | undefined) => a?.uuid ?? a?.account_id ?? null;

export const repository = z.looseObject({
  uuid: providerId,
  name: text,
  full_name: text,
  is_private: z.boolean().nullish(),
  /** Not in webhook payloads today; the REST API's repository carries it. */
  mainbranch: z.looseObject({ name: text }).nullish(),
  created_on: nullableTime,
});

export function repositoryRef(r: z.infer<typeof repository>): RepositoryRef {
  return {
    providerId: r.uuid,
    name: r.name,
    fullName: r.full_name,
    defaultBranch: r.mainbranch?.name ?? null,
    // A repository whose visibility is not said is taken as private: its data stays its organization's either way.
    isPrivate: r.is_private ?? true,
    createdAt: optionalProviderTime(r.created_on, 'repository.created_on'),
  };
}

const sha = z.string().regex(/^[0-9a-f]{40}$/i, 'a commit hash is 40 hex digits').transform((v) => v.toLowerCase());
/** Bitbucket names a pull request's commits by their first 12 digits. */
export const commitName = z.looseObject({ hash: z.string().regex(/^[0-9a-f]{7,40}$/i, 'a commit hash is hex digits').transform((v) => v.toLowerCase()) });

const pushedCommit = z.looseObject({
  hash: sha,
  message: text,
  date: time,
  /** `raw` is the commit's own `Name <e-mail>`; `user`, the account Bitbucket matched to that e-mail, if any. */
  author: z.looseObject({ raw: text, user: account.nullish() }),
});
const push = z.looseObject({
  repository,
  push: z.looseObject({
    changes: z.array(z.looseObject({ commits: z.array(pushedCommit).nullish(), truncated: z.boolean().nullish() })),
  }),
});

/** `Ada Lovelace <ada@example.com>`: the name and the e-mail; a raw author without `<…>` is a name only. */
export function rawAuthor(raw: string): { name: string; email: string | null } {
  const match = /^(.*?)\s*<([^<>]*)>\s*$/.exec(raw);
  if (!match) return { name: raw.trim(), email: null };
  return { name: match[1].trim() || match[2], email: match[2].trim() || null };
}

/** The commits of every change of a push, each once (a commit can reach two branches in one push). */
function pushedCommits(p: z.infer<typeof push>): { commits: CommitInput[]; truncated: boolean } {
  const bySha = new Map<string, CommitInput>();
  p.push.changes.forEach((change, i) =>
    (change.commits ?? []).forEach((c, j) => {
      const { name, email } = rawAuthor(c.author.raw);
      const createdAt = providerTime(c.date, `push.changes.${i}.commits.${j}.date`);
      bySha.set(c.hash, { sha: c.hash, message: c.message, authorName: name, authorEmail: email, authorUsername: accountName(c.author.user), createdAt });
    }),
  );
  return { commits: [...bySha.values()], truncated: p.push.changes.some((c) => c.truncated === true) };
}

export const pullRequestFields = z.looseObject({
  id: pullRequestNumber,
  title: text,
  description: nullableText,
  state: z.enum(['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED']),
  author: account.nullish(),
  source: z.looseObject({ commit: commitName.nullish() }).nullish(),
  merge_commit: commitName.nullish(),
  created_on: time,
  updated_on: time,
  /** Bitbucket Cloud's draft pull requests (2023); a payload from before says nothing. */
  draft: z.boolean().nullish(),
});
const pullRequestPayload = z.looseObject({ repository, actor: account.nullish(), pullrequest: pullRequestFields });

const STATES: Record<z.infer<typeof pullRequestFields>['state'], PullRequestState> = { OPEN: 'open', MERGED: 'merged', DECLINED: 'closed', SUPERSEDED: 'closed' };

/** Bitbucket gives no time of merging or declining: the pull request's `updated_on` in that state is it. */
export function pullRequestInput(pr: z.infer<typeof pullRequestFields>): PullRequestInput {
  const state = STATES[pr.state];
  const updatedAt = providerTime(pr.updated_on, 'pullrequest.updated_on');
  return {
    number: pr.id,
    title: pr.title,
    state,
    authorUsername: accountName(pr.author),
    authorProviderId: accountId(pr.author),
    body: pr.description,
    size: null,
    commits: { head: pr.source?.commit?.hash ?? null, merge: state === 'merged' ? (pr.merge_commit?.hash ?? null) : null },
    createdAt: providerTime(pr.created_on, 'pullrequest.created_on'),
    mergedAt: state === 'merged' ? updatedAt : null,
    closedAt: state === 'open' ? null : updatedAt,
    updatedAt,
    draft: pr.draft ?? null,
  };
}

/** An approval or a request for changes: who and when, named by both (Bitbucket gives them no id). */
export const verdict = z.looseObject({ date: time, user: account });
const approved = pullRequestPayload.extend({ approval: verdict });
const changesRequested = pullRequestPayload.extend({ changes_request: verdict });
/** A comment, on the whole pull request or a line of it, a reply or not: each is review activity of its own. */
export const comment = z.looseObject({ id: providerId, created_on: time, user: account.nullish() });
const commented = pullRequestPayload.extend({ comment });

const reviewBy = (who: Account | null | undefined) => ({ actorUsername: accountName(who), actorProviderId: accountId(who) });

export function verdictActivity(kind: ReviewActivityKind, v: z.infer<typeof verdict>, at: string): ReviewActivityInput {
  const createdAt = providerTime(v.date, `${at}.date`);
  return { externalId: `${kind}:${accountId(v.user) ?? accountName(v.user) ?? ''}:${createdAt.toISOString()}`, kind, ...reviewBy(v.user), createdAt };
}

/** A comment's activity, named by its id. */
export function commentActivity(c: z.infer<typeof comment>, at: string): ReviewActivityInput {
  return { externalId: `comment:${c.id}`, kind: 'comment', ...reviewBy(c.user), createdAt: providerTime(c.created_on, `${at}.created_on`) };
}

/** Commits pushed to a pull request, named by the head they made (12 digits, completed once the commit is stored). */
export function pushActivity(head: string, by: Account | null | undefined, at: Date): ReviewActivityInput {
  return { externalId: `commit:${head}`, kind: 'commit', ...reviewBy(by), createdAt: at };
}

/** What a Bitbucket Cloud delivery says, as git activity, or why it is ignored. */
export function bitbucketActivity(event: BitbucketEvent, payload: unknown): Activity | { ignored: string } {
  switch (event) {
    case 'repo:push': {
      const p = readPayload(bodyOf(event, push), payload, event);
      const { commits, truncated } = pushedCommits(p);
      return { kind: 'push', repository: repositoryRef(p.repository), commits, ...(truncated ? { truncated } : {}) };
    }
    case 'repo:updated': {
      // The repository as it is now: a rename keeps its uuid.
      const p = readPayload(bodyOf(event, z.looseObject({ repository })), payload, event);
      return { kind: 'repository', action: 'updated', repository: repositoryRef(p.repository) };
    }
    case 'repo:deleted': {
      // For workspace and app subscriptions: a repository's own webhook is gone with it.
      const p = readPayload(bodyOf(event, z.looseObject({ repository, actor: account }), 'deletes'), payload, event);
      return { kind: 'repository', action: 'deleted', repository: repositoryRef(p.repository) };
    }
    case 'pullrequest:created':
    case 'pullrequest:fulfilled':
    case 'pullrequest:rejected': {
      const p = readPayload(bodyOf(event, pullRequestPayload), payload, event);
      return { kind: 'pull_request', repository: repositoryRef(p.repository), pullRequest: pullRequestInput(p.pullrequest) };
    }
    case 'pullrequest:updated': {
      // Sent for an edit and for pushed commits alike: the head says which (onlyIfHeadMoved).
      const p = readPayload(bodyOf(event, pullRequestPayload), payload, event);
      const pr = pullRequestInput(p.pullrequest);
      if (!pr.commits.head) return { kind: 'pull_request', repository: repositoryRef(p.repository), pullRequest: pr };
      const review = { ...pushActivity(pr.commits.head, p.actor, pr.updatedAt), onlyIfHeadMoved: true };
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pr, pullRequestCurrent: true, review };
    }
    case 'pullrequest:approved': {
      const p = readPayload(bodyOf(event, approved), payload, event);
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pullRequestInput(p.pullrequest), pullRequestCurrent: true, review: verdictActivity('approved', p.approval, 'approval') };
    }
    case 'pullrequest:changes_request_created': {
      const p = readPayload(bodyOf(event, changesRequested), payload, event);
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pullRequestInput(p.pullrequest), pullRequestCurrent: true, review: verdictActivity('changes_requested', p.changes_request, 'changes_request') };
    }
    case 'pullrequest:comment_created': {
      const p = readPayload(bodyOf(event, commented), payload, event);
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pullRequestInput(p.pullrequest), pullRequestCurrent: true, review: commentActivity(p.comment, 'comment') };
    }
    case 'pullrequest:unapproved':
      // As GitHub's dismissed review: the approval given stays the review it was when given.
      return { ignored: 'an approval withdrawn is no review activity; the approval stays as given' };
  }
}
