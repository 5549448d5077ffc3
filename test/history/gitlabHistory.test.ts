/**
 * GitLab's history importer (src/integrations/gitlab/history.ts) against a local fake of GitLab's API
 * (test/support/peers/gitlabApi.ts) serving recorded answers: Apache DevLake's GitLab end-to-end tables, recorded
 * from gitlab.com's gitlab-data/snowflake_spend, and GitLab's API reference examples
 * (test/fixtures/history/gitlab/README.md says which is which).
 */
import { gitlabHistory } from '../../src/integrations/gitlab/history';
import { gitlabActivity } from '../../src/integrations/gitlab/activity';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import type { Activity } from '../../src/services/git/activity';
import type { HistoryKind, HistoryPage, HistoryReading, HistoryScope, HistoryWindow } from '../../src/services/history/historySource';
import { fakeGitlab, gitlabList, gitlabObject, GitlabProjectData } from '../support/peers/gitlabApi';
import type { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

const TOKEN = 'glpat-recorded-history';
const NOW = new Date('2022-07-01T00:00:00Z');
const WHOLE: HistoryWindow = { since: new Date('2019-01-01T00:00:00Z'), until: NOW };
const PROJECT: HistoryScope = { key: '4', name: 'diaspora/diaspora-client' };

const approvalsExample = gitlabObject('merge_request_approvals');
const PROJECTS = gitlabList('projects');

/**
 * Project 4 holds the recorded merge requests, notes, deployments and issues; project 6 nothing. Every merge request's
 * approvals: GitLab's example answer for !37, the same answer with nobody approving for the rest (derived here).
 */
function recorded(): GitlabProjectData {
  const mergeRequests = gitlabList('merge_requests');
  const approvals = new Map(mergeRequests.map((mr) => [Number(mr.iid), Number(mr.iid) === 37 ? approvalsExample : { ...approvalsExample, approved_by: [] }]));
  return { project: PROJECTS[0], mergeRequests, notes: gitlabList('merge_request_notes'), approvals, deployments: gitlabList('deployments'), issues: gitlabList('issues') };
}

/** A fake GitLab serving project 4 as given and project 6. */
function served(project4: GitlabProjectData, options: { pageSize?: number; interject?: { path: RegExp; answer: ScriptedAnswer } } = {}): ScriptedPeer {
  return fakeGitlab({ token: TOKEN, projects: [project4, { project: PROJECTS[1] }], ...options });
}

interface Harness {
  peer: ScriptedPeer;
  reading: HistoryReading;
  waits: Array<[number, string]>;
  slept: number[];
}

const started: ScriptedPeer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

async function harness(options: { pageSize?: number; token?: string; interject?: { path: RegExp; answer: ScriptedAnswer } } = {}): Promise<Harness> {
  const peer = served(recorded(), { pageSize: options.pageSize, interject: options.interject });
  await peer.start();
  started.push(peer);
  const waits: Array<[number, string]> = [];
  const slept: number[] = [];
  const reading: HistoryReading = {
    credential: { kind: 'token', token: options.token ?? TOKEN },
    baseUrl: `${peer.base}/api/v4`,
    http: {
      outbound: { allowPrivate: true, answerMaxBytes: 1024 * 1024, reportMaxBytes: 1024 * 1024 },
      sleep: async (ms) => void slept.push(ms),
      now: () => NOW,
      onWait: (seconds, why) => void waits.push([seconds, why]),
    },
    connection: { id: 'gap_gitlab', organizationId: 'org_acme' },
  };
  return { peer, reading, waits, slept };
}

async function collect(h: Harness, kind: HistoryKind, window = WHOLE, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const page of gitlabHistory.pages(h.reading, PROJECT, kind, window, cursor)) pages.push(page);
  return pages;
}

const activities = (pages: HistoryPage[]) => pages.flatMap((p) => p.activities ?? []);
const pullRequests = (pages: HistoryPage[]) => activities(pages).flatMap((a) => (a.kind === 'pull_request' ? [a.pullRequest] : []));
const reviews = (pages: HistoryPage[]) => activities(pages).flatMap((a) => (a.kind === 'review' ? [{ number: a.pullRequest.number, ...a.review }] : []));
const listingRequests = (h: Harness, resource: string) => h.peer.requests.map((r) => new URL(r.path, h.peer.base)).filter((u) => u.pathname.endsWith(`/${resource}`));

describe('GitLab history: projects', () => {
  it('lists the projects the token is a member of, in id order, a page at a time by id', async () => {
    const h = await harness({ pageSize: 1 });
    expect(await gitlabHistory.scopes(h.reading)).toEqual([
      { key: '4', name: 'diaspora/diaspora-client' },
      { key: '6', name: 'brightbox/puppet' },
    ]);
    const asked = listingRequests(h, 'projects');
    // The second page names no next page: the listing ends there.
    expect(asked.map((u) => u.searchParams.get('id_after'))).toEqual(['0', '4']);
    expect(asked[0].searchParams.get('membership')).toBe('true');
    expect(asked[0].searchParams.get('simple')).toBe('true');
    expect(asked[0].searchParams.get('order_by')).toBe('id');
    expect(h.peer.requests[0].headers['private-token']).toBe(TOKEN);
  });

  it('reads just the projects named, by path or id, each once; a name the token cannot read fails naming it', async () => {
    const h = await harness();
    expect(await gitlabHistory.scopes(h.reading, ['brightbox/puppet', '4', '6'])).toEqual([
      { key: '6', name: 'brightbox/puppet' },
      { key: '4', name: 'diaspora/diaspora-client' },
    ]);
    await expect(gitlabHistory.scopes(h.reading, ['diaspora/missing'])).rejects.toThrow(new ProviderFailure('GitLab: no project diaspora/missing that the token can read'));
  });
});

describe('GitLab history: merge requests', () => {
  it('translates merge requests as the Merge Request Hook does, with the author the API names', async () => {
    const h = await harness();
    const pages = await collect(h, 'pull_requests');
    const prs = pullRequests(pages);
    expect(prs.map((pr) => pr.number)).toEqual([29, 37, 46, 30, 12, 9, 11, 10, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(prs.find((pr) => pr.number === 1)).toEqual({
      number: 1,
      title: 'Resolve "Add documentation to snowflake spend package"',
      state: 'merged',
      authorUsername: 'emilie',
      authorProviderId: '2295562',
      body: 'Closes #1',
      size: null,
      commits: { head: 'ad25fcda15e310a7eb34b3e38ff9b962b54f0e03', merge: 'da1d6dea48f5972ffc683da6cff30934e7d6c52c' },
      createdAt: new Date('2019-06-28T05:21:43.743Z'),
      mergedAt: new Date('2019-06-28T14:32:06.192Z'),
      closedAt: new Date('2019-06-28T14:32:06.192Z'),
      updatedAt: new Date('2019-06-28T14:32:05.270Z'),
      // GitLab's API says whether it is a draft, not when it became ready (docs/history.md#drafts).
      draft: false,
    });
    const open = prs.find((pr) => pr.number === 37);
    expect(open).toMatchObject({ state: 'open', authorUsername: 'paul_armstrong', mergedAt: null, closedAt: null, commits: { head: 'f1d0704d7c6a022d4cdd1cc6d519b69740f7e5b4', merge: null } });
    expect(pages[0]).toMatchObject({ read: 16 });
    expect(pages.slice(1).every((p) => p.read === 0)).toBe(true);
  });

  it("reads each merge request's notes as the Note Hook does: comments, never system notes", async () => {
    const h = await harness({ pageSize: 4 });
    const comments = reviews(await collect(h, 'pull_requests')).filter((r) => r.kind === 'comment');
    expect(comments.map((c) => [c.number, c.externalId, c.actorUsername])).toEqual([
      [3, 'note:208061122', 'emilie'],
      [3, 'note:208092969', 'martinguindon'],
      [3, 'note:208121781', 'emilie'],
      [1, 'note:186439132', 'emilie'],
    ]);
    expect(comments[0]).toMatchObject({ actorProviderId: '2295562', createdAt: new Date('2019-08-26T12:14:39.003Z') });
    // Merge request !1 has 11 notes: three pages of four.
    expect(h.peer.requests.filter((r) => r.path.includes('/merge_requests/1/notes')).map((r) => new URL(r.path, h.peer.base).searchParams.get('page'))).toEqual(['1', '2', '3']);
  });

  it('names an approval by its approver, as the hook does, at its first approval note, else at the merge request update', async () => {
    const h = await harness();
    const approvals = reviews(await collect(h, 'pull_requests')).filter((r) => r.kind === 'approved');
    // !37's notes: basicthinker approved, withdrew and approved again; the approvals endpoint names root.
    expect(approvals).toEqual([
      { number: 29, externalId: 'approval:liyongfeng', kind: 'approved', actorUsername: 'liyongfeng', actorProviderId: '3393147', createdAt: new Date('2019-01-25T16:46:23.996Z') },
      { number: 37, externalId: 'approval:basicthinker', kind: 'approved', actorUsername: 'basicthinker', actorProviderId: '2436773', createdAt: new Date('2019-01-29T00:40:37.158Z') },
      { number: 37, externalId: 'approval:root', kind: 'approved', actorUsername: 'root', actorProviderId: '1', createdAt: new Date('2022-06-03T18:06:46.331Z') },
      { number: 46, externalId: 'approval:hackwaly', kind: 'approved', actorUsername: 'hackwaly', actorProviderId: '3014346', createdAt: new Date('2019-02-01T11:43:54.686Z') },
      { number: 30, externalId: 'approval:liyongfeng', kind: 'approved', actorUsername: 'liyongfeng', actorProviderId: '3393147', createdAt: new Date('2019-01-26T11:41:34.158Z') },
    ]);
    // The same approval by its Merge Request Hook (`approval` by basicthinker) has the same name.
    const hook = gitlabActivity('merge_request', {
      object_kind: 'merge_request',
      user: { username: 'basicthinker', id: 2436773 },
      project: { id: 4, name: 'Diaspora Client', path_with_namespace: 'diaspora/diaspora-client' },
      object_attributes: { ...recorded().mergeRequests?.find((mr) => mr.iid === 37), action: 'approval' },
    });
    expect(hook).toMatchObject({ kind: 'review', review: { externalId: 'approval:basicthinker', kind: 'approved' } });
  });

  it('reads approvals from their notes alone on a GitLab without the approvals endpoint', async () => {
    const data = recorded();
    data.approvals = new Map();
    const peer = served(data);
    await peer.start();
    started.push(peer);
    const h = await harness();
    const pages: HistoryPage[] = [];
    for await (const page of gitlabHistory.pages({ ...h.reading, baseUrl: `${peer.base}/api/v4` }, PROJECT, 'pull_requests', WHOLE, null)) pages.push(page);
    expect(reviews(pages).flatMap((r) => (r.kind === 'approved' ? [r.externalId] : []))).toEqual(['approval:liyongfeng', 'approval:basicthinker', 'approval:hackwaly', 'approval:liyongfeng']);
  });

  it('pages newest first below the last time seen and stops at the window start', async () => {
    const h = await harness({ pageSize: 3 });
    const since = new Date('2020-04-08T20:52:00Z');
    const prs = pullRequests(await collect(h, 'pull_requests', { since, until: NOW }));
    // Each page again from its first, below the oldest time seen (a millisecond on: GitLab keeps microseconds);
    // the merge request at that time comes again and is skipped.
    expect(prs.map((pr) => pr.number)).toEqual([29, 37, 46, 30, 12, 9, 11, 10, 8]);
    const asked = listingRequests(h, 'merge_requests');
    expect(asked.map((u) => [u.searchParams.get('updated_before'), u.searchParams.get('page')])).toEqual([
      [null, '1'],
      ['2022-03-15T03:07:22.643Z', '1'],
      ['2020-07-24T21:13:34.908Z', '1'],
      ['2020-06-24T12:35:01.116Z', '1'],
    ]);
    expect(asked.every((u) => u.searchParams.get('updated_after') === since.toISOString() && u.searchParams.get('order_by') === 'updated_at' && u.searchParams.get('sort') === 'desc')).toBe(true);
  });

  it('resumes from a stored cursor with the rest of the listing only', async () => {
    const whole = await harness({ pageSize: 5 });
    const all = await collect(whole, 'pull_requests');
    // The first listing page's last part carries the cursor past it; the parts before, the page's own.
    const firstPageEnd = all.findIndex((p, i) => i > 0 && p.read > 0) - 1;
    const cursor = all[firstPageEnd].next;
    expect(all.slice(0, firstPageEnd).every((p) => p.next === all[0].next)).toBe(true);
    expect(cursor).not.toBe(all[0].next);

    const resumed = await harness({ pageSize: 5 });
    const rest = pullRequests(await collect(resumed, 'pull_requests', WHOLE, cursor));
    const firstPage = pullRequests(all.slice(0, firstPageEnd + 1)).map((pr) => pr.number);
    expect(firstPage).toEqual([29, 37, 46, 30, 12]);
    expect(rest.map((pr) => pr.number)).toEqual([9, 11, 10, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all[all.length - 1].next).toBeNull();
  });

  it('rereads the page when every item on it has one time, stepping by page instead of looping', async () => {
    const h = await harness({ pageSize: 2 });
    const data = recorded();
    // Derived: the recorded merge requests !1 to !4 given one update time, as a bulk edit leaves them.
    const sameTime = '2019-08-26T15:37:49.575Z';
    data.mergeRequests = (data.mergeRequests ?? []).filter((mr) => Number(mr.iid) <= 4).map((mr) => ({ ...mr, updated_at: sameTime }));
    const peer = served(data, { pageSize: 2 });
    await peer.start();
    started.push(peer);
    const reading = { ...h.reading, baseUrl: `${peer.base}/api/v4` };
    const numbers: number[] = [];
    for await (const page of gitlabHistory.pages(reading, PROJECT, 'pull_requests', WHOLE, null)) numbers.push(...pullRequests([page]).map((pr) => pr.number));
    expect(numbers.sort()).toEqual([1, 2, 3, 4]);
  });
});

describe('GitLab history: deployments and issues', () => {
  it('translates finished deployments as the Deployment Hook does, at the time their status changed', async () => {
    const h = await harness();
    const pages = await collect(h, 'deployments');
    const deployments = activities(pages).flatMap((a) => (a.kind === 'deployment' ? [a.deployment] : []));
    expect(deployments).toEqual([
      { externalId: '13432768', environment: 'staging', status: 'failure', sha: '35c3a3d82586fa0bcdb2a73b812081ece4e83429', createdAt: new Date('2019-03-13T15:02:23.332Z'), finishedAt: new Date('2019-03-13T15:02:23.332Z') },
      { externalId: '13426753', environment: 'staging', status: 'success', sha: 'add237f6852e6108ee8e0246780a54ce909c6087', createdAt: new Date('2019-03-13T14:17:47.647Z'), finishedAt: new Date('2019-03-13T14:17:47.647Z') },
    ]);
    // The rest are not finished (created, running, blocked, canceled, and DevLake's `completed`).
    expect(pages.reduce((n, p) => n + p.read, 0)).toBe(7);
    expect(listingRequests(h, 'deployments')[0].searchParams.get('order_by')).toBe('updated_at');
  });

  it("translates issues as the Issue Hook does: its project's tasks, and incidents", async () => {
    const h = await harness();
    const tasks = (await collect(h, 'issues')).flatMap((p) => p.tasks ?? []);
    expect(tasks).toHaveLength(16);
    expect(tasks.find((t) => t.externalId === '22097949')).toEqual({
      board: 'diaspora/diaspora-client',
      externalId: '22097949',
      title: 'Add documentation to snowflake spend package',
      type: 'task',
      statusName: 'closed',
      statusCategory: 'done',
      assignee: { externalId: '2295562', email: null, username: 'emilie' },
      storyPoints: null,
      parentExternalId: null,
      createdAt: new Date('2019-06-20T15:04:58.946Z'),
      updatedAt: new Date('2019-06-28T14:32:05.434Z'),
      resolvedAt: new Date('2019-06-28T14:32:05.376Z'),
      transitions: [],
    });
    expect(tasks.find((t) => t.externalId === '23577209')).toMatchObject({ statusName: 'open', statusCategory: 'backlog', assignee: null, resolvedAt: null });

    // Derived: the recorded issue 23577209 as an incident, as the API types one (`type` INCIDENT, `issue_type` incident).
    const data = recorded();
    data.issues = (data.issues ?? []).filter((i) => i.id === 23577209).map((i) => ({ ...i, type: 'INCIDENT', issue_type: 'incident' }));
    const peer = served(data);
    await peer.start();
    started.push(peer);
    const incidents: Activity[] = [];
    for await (const page of gitlabHistory.pages({ ...h.reading, baseUrl: `${peer.base}/api/v4` }, PROJECT, 'issues', WHOLE, null)) incidents.push(...(page.activities ?? []));
    expect(incidents).toEqual([
      {
        kind: 'incident',
        repository: { providerId: '4', name: 'Diaspora Client', fullName: 'diaspora/diaspora-client', defaultBranch: 'master', isPrivate: true, createdAt: null },
        incident: { externalId: '23577209', title: 'Expand package', causeSha: null, fixSha: null, createdAt: new Date('2019-08-07T13:52:40.231Z'), resolvedAt: null, updatedAt: new Date('2020-04-08T20:53:43.146Z') },
      },
    ]);
  });
});

describe('GitLab history: rate limits and refusals', () => {
  it("waits out a 429's Retry-After, told to onWait", async () => {
    const h = await harness({ interject: { path: /\/merge_requests$/, answer: { status: 429, text: 'Retry later\n', headers: { 'content-type': 'text/plain', 'retry-after': '7', 'ratelimit-remaining': '0' } } } });
    expect(pullRequests(await collect(h, 'pull_requests'))).toHaveLength(16);
    expect(h.slept).toEqual([7000]);
    expect(h.waits).toEqual([[7, expect.stringContaining('GitLab diaspora/diaspora-client: GET /api/v4/projects/4/merge_requests: rate limited')]]);
  });

  it("waits until GitLab's RateLimit-Reset when a 429 names no Retry-After", async () => {
    const reset = String(NOW.getTime() / 1000 + 42);
    const h = await harness({ interject: { path: /\/deployments$/, answer: { status: 429, text: 'Retry later\n', headers: { 'content-type': 'text/plain', 'ratelimit-remaining': '0', 'ratelimit-reset': reset } } } });
    expect(activities(await collect(h, 'deployments'))).toHaveLength(2);
    expect(h.slept).toEqual([42000]);
  });

  it('a 401 refuses the credential, naming the project', async () => {
    const h = await harness({ token: 'glpat-revoked' });
    await expect(collect(h, 'issues')).rejects.toThrow(CredentialRefused);
    await expect(collect(h, 'issues')).rejects.toThrow(/^GitLab diaspora\/diaspora-client: GET \/api\/v4\/projects\/4: the vendor refused the credential \(401: .*401 Unauthorized/);
    await expect(gitlabHistory.scopes(h.reading)).rejects.toThrow(CredentialRefused);
  });
});
