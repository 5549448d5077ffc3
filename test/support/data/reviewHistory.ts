import { UserGitApp } from '../../../db/models';
import type { TestApp } from '../harness';
import { DEMO } from '../harness';
import { copy, deliverToGithub, deliverToGitlab, githubExamples } from '../peers/ingest';
import { GITLAB_EVENT_HEADERS, mergeRequestHook, noteHook, pushHook } from '../peers/gitlabPayloads';
import { createLab, sha } from './metricsHistory';
import { BITBUCKET_PAYLOADS, deliverToBitbucket } from '../peers/bitbucket/deliveries';

/**
 * A week of code review in March 2026 whose collaboration figures test/metrics/collaborationMetrics.test.ts works out by
 * hand, delivered as GitHub or as GitLab sends it. Ada, Grace and Margaret are the Lab organization's members; their
 * provider user names are their first names. Dana works on the repository too but is no member (a contractor): no
 * user name of hers is bound to the git app. Each has a user id at the provider, as both providers send it.
 */
/** Members, a contractor who is none, and bots: GitHub Apps act as `<slug>[bot]` (Dependabot's account is id 49699333). */
export type Person = 'ada' | 'grace' | 'margaret' | 'dana' | 'dependabot[bot]' | 'coderabbitai[bot]' | 'release-bot';
export const PROVIDER_USER_IDS: Record<Person, number> = { ada: 9001, grace: 9002, margaret: 9003, dana: 9004, 'dependabot[bot]': 49699333, 'coderabbitai[bot]': 136622811, 'release-bot': 9005 };
/** Bitbucket names an account by its Atlassian account id (bound on the git app) and its uuid. */
const bitbucketUser = (person: Person) => ({ uuid: `{00000000-0000-4000-8000-00000000${PROVIDER_USER_IDS[person]}}`, account_id: `557058:${person}-${PROVIDER_USER_IDS[person]}`, nickname: person, display_name: person, type: 'user' });
export type ReviewProvider = 'github' | 'gitlab' | 'bitbucket';
/** Commits are named by a key (their sha is `sha(key)`); `size` is GitHub's additions and deletions. */
export type Step =
  | { do: 'push'; key: string; by: Person; at: string; message: string }
  | { do: 'open'; pr: number; by: Person; at: string; body?: string; head?: string; size?: [number, number] }
  | { do: 'commit'; pr: number; by: Person; at: string; key?: string }
  | { do: 'merge'; pr: number; by: Person; at: string; mergeCommit?: string }
  | { do: 'comment' | 'review_comment' | 'approved' | 'changes_requested'; pr: number; by: Person; at: string };
type PullRequestStep = Exclude<Step, { do: 'push' }>;

export const REVIEW_HISTORY: Step[] = [
  // #1: picked up by a comment, changed, approved.
  { do: 'open', pr: 1, by: 'ada', at: '2026-03-02T09:00:00Z' },
  { do: 'comment', pr: 1, by: 'grace', at: '2026-03-02T11:00:00Z' },
  { do: 'commit', pr: 1, by: 'ada', at: '2026-03-02T12:00:00Z' },
  { do: 'approved', pr: 1, by: 'grace', at: '2026-03-02T15:00:00Z' },
  { do: 'merge', pr: 1, by: 'ada', at: '2026-03-02T17:00:00Z' },
  // #2: the author's own comment is no review: merged unreviewed.
  { do: 'open', pr: 2, by: 'ada', at: '2026-03-03T10:00:00Z' },
  { do: 'comment', pr: 2, by: 'ada', at: '2026-03-03T11:00:00Z' },
  { do: 'merge', pr: 2, by: 'ada', at: '2026-03-03T12:00:00Z' },
  // #3: a self-approval first, then Grace's.
  { do: 'open', pr: 3, by: 'ada', at: '2026-03-04T08:00:00Z' },
  { do: 'approved', pr: 3, by: 'ada', at: '2026-03-04T09:00:00Z' },
  { do: 'approved', pr: 3, by: 'grace', at: '2026-03-04T12:00:00Z' },
  { do: 'merge', pr: 3, by: 'ada', at: '2026-03-04T13:00:00Z' },
  // #4: changes requested, a commit, approved.
  { do: 'open', pr: 4, by: 'grace', at: '2026-03-05T09:00:00Z' },
  { do: 'changes_requested', pr: 4, by: 'margaret', at: '2026-03-05T10:00:00Z' },
  { do: 'commit', pr: 4, by: 'grace', at: '2026-03-05T11:00:00Z' },
  { do: 'approved', pr: 4, by: 'margaret', at: '2026-03-05T14:00:00Z' },
  { do: 'merge', pr: 4, by: 'grace', at: '2026-03-05T15:00:00Z' },
  // #5, #7, #8: Margaret's merged pull requests, all reviewed by Grace alone (a knowledge silo).
  { do: 'open', pr: 5, by: 'margaret', at: '2026-03-06T08:00:00Z' },
  { do: 'approved', pr: 5, by: 'grace', at: '2026-03-06T16:00:00Z' },
  { do: 'merge', pr: 5, by: 'margaret', at: '2026-03-06T18:00:00Z' },
  // #6: approved by its author only: merged unreviewed.
  { do: 'open', pr: 6, by: 'ada', at: '2026-03-07T10:00:00Z' },
  { do: 'approved', pr: 6, by: 'ada', at: '2026-03-07T10:30:00Z' },
  { do: 'merge', pr: 6, by: 'ada', at: '2026-03-07T11:00:00Z' },
  { do: 'open', pr: 7, by: 'margaret', at: '2026-03-07T12:00:00Z' },
  { do: 'comment', pr: 7, by: 'grace', at: '2026-03-07T13:00:00Z' },
  { do: 'approved', pr: 7, by: 'grace', at: '2026-03-07T14:00:00Z' },
  { do: 'merge', pr: 7, by: 'margaret', at: '2026-03-07T15:00:00Z' },
  { do: 'open', pr: 8, by: 'margaret', at: '2026-03-08T08:00:00Z' },
  { do: 'approved', pr: 8, by: 'grace', at: '2026-03-08T09:00:00Z' },
  { do: 'merge', pr: 8, by: 'margaret', at: '2026-03-08T10:00:00Z' },
  // #9: still open; Grace's comment counts in her load.
  { do: 'open', pr: 9, by: 'margaret', at: '2026-03-08T11:00:00Z' },
  { do: 'comment', pr: 9, by: 'grace', at: '2026-03-08T12:00:00Z' },
];

const USERS: Record<Extract<Person, 'ada' | 'grace' | 'margaret'>, string> = { ada: DEMO.users.ada, grace: DEMO.users.grace, margaret: DEMO.users.margaret };

interface Opened {
  by: Person;
  at: string;
  body: string;
  head: string | null;
  size: [number, number] | null;
}

const EMAILS: Record<Person, string> = {
  ada: DEMO.emails.ada,
  grace: DEMO.emails.grace,
  margaret: DEMO.emails.margaret,
  dana: 'dana@contractor.example',
  'dependabot[bot]': '49699333+dependabot[bot]@users.noreply.github.com',
  'coderabbitai[bot]': '136622811+coderabbitai[bot]@users.noreply.github.com',
  'release-bot': 'release-bot@lab.example',
};

/** The Lab organization, with the history delivered through a new git app of that provider. */
export async function deliverReviewHistory(t: TestApp, provider: ReviewProvider, steps: Step[] = REVIEW_HISTORY, first?: (organizationId: string) => Promise<void>) {
  const { lab, gitAppId, secret } = await createLab(t, `Lab (${provider} reviews)`);
  await first?.(lab.organizationId);
  const { gitApp, secret: appSecret } = provider === 'github' ? { gitApp: { id: gitAppId }, secret } : await t.runtime.writers.gitApps.create(lab.organizationId, provider, `${provider} Lab`);
  for (const person of Object.keys(USERS) as (keyof typeof USERS)[]) {
    const username = provider === 'bitbucket' ? bitbucketUser(person).account_id : person;
    await UserGitApp.create({ user_id: USERS[person], git_app_id: gitApp.id, username, created_at: new Date() });
  }
  const deliver = async (event: string, payload: unknown) => {
    const res =
      provider === 'github'
        ? await deliverToGithub(t, gitApp.id, secret, { event, payload })
        : provider === 'gitlab'
          ? await deliverToGitlab(t, gitApp.id, appSecret, { event, payload })
          : await deliverToBitbucket(t, gitApp.id, appSecret, { event, payload });
    if (res.status !== 200) throw new Error(`${event}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const translate = { github, gitlab, bitbucket }[provider];
  const translatePush = { github: githubPush, gitlab: gitlabPush, bitbucket: bitbucketPush }[provider];
  const opened = new Map<number, Opened>();
  let n = 0;
  for (const step of steps) {
    n++;
    if (step.do === 'push') {
      await deliver(...translatePush(step));
      continue;
    }
    if (step.do === 'open') opened.set(step.pr, { by: step.by, at: step.at, body: step.body ?? 'Fixes the thing.', head: step.head ? sha(step.head) : null, size: step.size ?? null });
    const pr = opened.get(step.pr)!;
    if (step.do === 'commit') pr.head = step.key ? sha(step.key) : serial(n);
    const [event, payload] = translate(step, pr, n);
    await deliver(event, payload);
  }
  return lab;
}

/** A commit of no push, for steps that name none: distinct in its first 12 digits, as Bitbucket names commits. */
const serial = (n: number) => n.toString(16).padStart(12, '0').padEnd(40, 'a');

function githubPush(step: Extract<Step, { do: 'push' }>): [string, unknown] {
  const example = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
  const prRepository = githubExamples('pull_request').find((p) => p.action === 'opened')!.repository;
  // The push example's repository is another: here, the pull requests'.
  example.repository = { ...example.repository, id: prRepository.id, node_id: prRepository.node_id, name: prRepository.name, full_name: prRepository.full_name };
  example.after = sha(step.key);
  example.commits = [{ ...example.commits[0], id: sha(step.key), tree_id: sha(step.key), message: step.message, timestamp: step.at, author: { name: step.by, email: EMAILS[step.by], username: step.by } }];
  example.head_commit = example.commits[0];
  return ['push', example];
}

function gitlabPush(step: Extract<Step, { do: 'push' }>): [string, unknown] {
  const example = copy(pushHook);
  example.project = noteHook.project;
  example.project_id = noteHook.project.id;
  example.after = sha(step.key);
  example.checkout_sha = sha(step.key);
  example.commits = [{ ...example.commits[0], id: sha(step.key), message: step.message, title: step.message.split('\n')[0], timestamp: step.at, author: { name: step.by, email: EMAILS[step.by] } }];
  example.total_commits_count = 1;
  return [GITLAB_EVENT_HEADERS.push, example];
}

/** GitHub's example payloads, of one repository, made to say what the step did. */
function github(step: PullRequestStep, opened: Opened, n: number): [string, unknown] {
  const example = (event: string, action: string) => copy(githubExamples(event).find((p) => p.action === action)!);
  const repository = example('pull_request', 'opened').repository;
  const merged = step.do === 'merge';
  const pullRequest = (template: Record<string, any>) => ({
    ...template,
    number: step.pr,
    title: `PR ${step.pr}`,
    body: opened.body,
    user: { ...template.user, login: opened.by, id: PROVIDER_USER_IDS[opened.by] },
    state: merged ? 'closed' : 'open',
    merged,
    merged_at: merged ? step.at : null,
    closed_at: merged ? step.at : null,
    created_at: opened.at,
    updated_at: step.at,
    head: { ...template.head, sha: opened.head ?? serial(0) },
    merge_commit_sha: merged && 'mergeCommit' in step && step.mergeCommit ? sha(step.mergeCommit) : template.merge_commit_sha,
    additions: opened.size?.[0] ?? template.additions,
    deletions: opened.size?.[1] ?? template.deletions,
  });
  switch (step.do) {
    case 'open':
    case 'merge':
    case 'commit': {
      const payload = example('pull_request', step.do === 'open' ? 'opened' : step.do === 'merge' ? 'closed' : 'synchronize');
      Object.assign(payload, { repository, pull_request: pullRequest(payload.pull_request), sender: { ...payload.sender, login: step.by, id: PROVIDER_USER_IDS[step.by] } });
      if (step.do === 'commit') payload.after = opened.head;
      return ['pull_request', payload];
    }
    case 'comment': {
      // GitHub's issue_comment examples are on issues: the same comment on this pull request.
      const payload = example('issue_comment', 'created');
      payload.repository = repository;
      payload.issue = { ...payload.issue, number: step.pr, title: `PR ${step.pr}`, user: { ...payload.issue.user, login: opened.by, id: PROVIDER_USER_IDS[opened.by] }, created_at: opened.at, updated_at: step.at, state: 'open', pull_request: { url: `https://api.github.com/repos/x/y/pulls/${step.pr}`, merged_at: null } };
      payload.comment = { ...payload.comment, id: 10_000 + n, user: { ...payload.comment.user, login: step.by, id: PROVIDER_USER_IDS[step.by] }, created_at: step.at, updated_at: step.at };
      return ['issue_comment', payload];
    }
    case 'review_comment': {
      const payload = example('pull_request_review_comment', 'created');
      payload.repository = repository;
      payload.pull_request = pullRequest(payload.pull_request);
      payload.comment = { ...payload.comment, id: 40_000 + n, user: { ...payload.comment.user, login: step.by, id: PROVIDER_USER_IDS[step.by] }, created_at: step.at, updated_at: step.at };
      return ['pull_request_review_comment', payload];
    }
    default: {
      const payload = example('pull_request_review', 'submitted');
      payload.repository = repository;
      payload.pull_request = pullRequest(payload.pull_request);
      payload.review = { ...payload.review, id: 20_000 + n, state: step.do, user: { ...payload.review.user, login: step.by, id: PROVIDER_USER_IDS[step.by] }, submitted_at: step.at };
      return ['pull_request_review', payload];
    }
  }
}

/**
 * GitLab's documented Merge Request Hook and Note Hook, of one project. GitLab has no "changes requested" event: a
 * note says it; a comment on the diff is a note too.
 */
function gitlab(step: PullRequestStep, opened: Opened, n: number): [string, unknown] {
  const at = step.at.replace('T', ' ').replace('Z', ' UTC');
  const merged = step.do === 'merge';
  const attributes = (template: Record<string, any>) => ({
    ...template,
    iid: step.pr,
    title: `PR ${step.pr}`,
    description: opened.body,
    author_id: PROVIDER_USER_IDS[opened.by],
    state: merged ? 'merged' : 'opened',
    created_at: opened.at.replace('T', ' ').replace('Z', ' UTC'),
    updated_at: at,
    merged_at: merged ? at : null,
    closed_at: null,
    last_commit: { ...template.last_commit, id: opened.head ?? serial(0) },
    merge_commit_sha: merged && 'mergeCommit' in step && step.mergeCommit ? sha(step.mergeCommit) : null,
  });
  if (step.do === 'comment' || step.do === 'review_comment' || step.do === 'changes_requested') {
    const payload = copy(noteHook);
    payload.user = { ...payload.user, username: step.by, id: PROVIDER_USER_IDS[step.by] };
    payload.object_attributes = { ...payload.object_attributes, id: 30_000 + n, noteable_type: 'MergeRequest', created_at: at, updated_at: at, system: false };
    payload.merge_request = attributes(payload.merge_request);
    return [GITLAB_EVENT_HEADERS.note, payload];
  }
  const payload = copy(mergeRequestHook);
  payload.project = noteHook.project;
  payload.user = { ...payload.user, username: step.by, id: PROVIDER_USER_IDS[step.by] };
  const action = { open: 'open', merge: 'merge', approved: 'approved', commit: 'update' }[step.do];
  payload.object_attributes = { ...attributes(payload.object_attributes), action, ...(step.do === 'commit' ? { oldrev: serial(n - 1) } : {}) };
  return [GITLAB_EVENT_HEADERS.mergeRequest, payload];
}

/** Bitbucket's times: microseconds and an offset. */
const bitbucketTime = (iso: string) => iso.replace('Z', '.000000+00:00');
/** Every Bitbucket delivery of the week is of the repository of the captured approval and merge. */
const bitbucketRepository = () => copy(BITBUCKET_PAYLOADS['pullrequest:fulfilled'].repository);

function bitbucketPush(step: Extract<Step, { do: 'push' }>): [string, unknown] {
  const example = copy(BITBUCKET_PAYLOADS['repo:push']);
  example.repository = bitbucketRepository();
  const [change] = example.push.changes;
  const commit = { ...change.commits[0], hash: sha(step.key), message: step.message, date: bitbucketTime(step.at), author: { type: 'author', raw: `${step.by} <${EMAILS[step.by]}>`, user: { ...change.commits[0].author.user, ...bitbucketUser(step.by) } } };
  example.push.changes = [{ ...change, new: { ...change.new, target: commit }, commits: [commit], truncated: false }];
  return ['repo:push', example];
}

/**
 * Bitbucket's captured pull request deliveries, of one repository. Bitbucket names the head and merge commits by
 * 12 digits; a pushed commit is a `pullrequest:updated` with a new head.
 */
function bitbucket(step: PullRequestStep, opened: Opened, n: number): [string, unknown] {
  const merged = step.do === 'merge';
  const event = {
    open: 'pullrequest:created',
    commit: 'pullrequest:updated',
    merge: 'pullrequest:fulfilled',
    approved: 'pullrequest:approved',
    changes_requested: 'pullrequest:changes_request_created',
    comment: 'pullrequest:comment_created',
    review_comment: 'pullrequest:comment_created',
  }[step.do];
  const payload = copy(BITBUCKET_PAYLOADS[event]);
  const template = payload.pullrequest;
  payload.repository = bitbucketRepository();
  payload.actor = { ...payload.actor, ...bitbucketUser(step.by) };
  payload.pullrequest = {
    ...template,
    id: step.pr,
    title: `PR ${step.pr}`,
    description: opened.body,
    author: { ...template.author, ...bitbucketUser(opened.by) },
    state: merged ? 'MERGED' : 'OPEN',
    source: { ...template.source, commit: { ...template.source.commit, hash: (opened.head ?? serial(0)).slice(0, 12) } },
    merge_commit: merged ? { type: 'commit', hash: 'mergeCommit' in step && step.mergeCommit ? sha(step.mergeCommit).slice(0, 12) : '6ca069123978' } : null,
    created_on: bitbucketTime(opened.at),
    updated_on: bitbucketTime(step.at),
  };
  const verdict = { date: bitbucketTime(step.at), user: { ...payload.actor } };
  if (step.do === 'approved') payload.approval = verdict;
  if (step.do === 'changes_requested') payload.changes_request = verdict;
  if (step.do === 'comment' || step.do === 'review_comment') {
    payload.comment = { ...payload.comment, id: 30_000 + n, created_on: bitbucketTime(step.at), updated_on: bitbucketTime(step.at), user: { ...payload.comment.user, ...bitbucketUser(step.by) } };
  }
  return [event, payload];
}
