/**
 * GitLab's REST API (v4) as the history row serves it (src/integrations/gitlab/history*.ts reads it): the projects the
 * token is a member of (by `id_after`), and each one's merge requests, deployments and issues newest change first
 * (`updated_after`/`updated_before`, both inclusive, paged with `X-Next-Page`), a merge request's notes oldest first
 * and its approvals. Every object is a recorded one (test/fixtures/history/gitlab/README.md: Apache DevLake's recording
 * of gitlab-data/snowflake_spend, GitLab's documented project and approvals) with its ids, numbers, people and times
 * replaced; the lists' items take the recorded items in turn. A merge request's notes are comments (the recorded
 * people's notes) and approvals (the recorded `approved this merge request` system notes), by members other than
 * its author, an hour apart from its opening.
 */
import { recorded, recordedList, varied } from './fixtures';
import { before, FakeAnswer, FakeApi, iso, memberAt, notFound, share, shaOf, spreadTime, World } from './world';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const GROUP = 'bench-group';

const projectTemplate = recordedList('fixtures/history/gitlab/projects.json')[0];
const mergeRequestTemplates = recordedList('fixtures/history/gitlab/merge_requests.json');
const notes = recordedList('fixtures/history/gitlab/merge_request_notes.json');
const commentTemplates = notes.filter((n) => !n.system);
const approvalNoteTemplate = notes.find((n) => n.system && n.body === 'approved this merge request')!;
const approvalsTemplate = recorded('fixtures/history/gitlab/merge_request_approvals.json');
// The deployments that finished (success, failed): GitLab's hook brings only those as deployments.
const deploymentTemplates = recordedList('fixtures/history/gitlab/deployments.json').filter((d) => d.status === 'success' || d.status === 'failed');
const issueTemplates = recordedList('fixtures/history/gitlab/issues.json');

export const gitlabSizes = (quick: boolean) =>
  quick
    ? { projects: 5, merge_requests: 500, comments: 1_000, approvals: 500, deployments: 100, issues: 150 }
    : { projects: 100, merge_requests: 15_000, comments: 30_000, approvals: 15_000, deployments: 2_000, issues: 4_000 };

const PROJECT_ID = 40_000_000;

function user(world: World, i: number) {
  const m = memberAt(world, i);
  return { id: m.providerId, username: m.login, name: m.login };
}

function project(p: number) {
  const path = `service-${String(p).padStart(3, '0')}`;
  return varied(projectTemplate, {
    id: PROJECT_ID + p,
    name: path,
    path,
    path_with_namespace: `${GROUP}/${path}`,
    name_with_namespace: `${GROUP} / ${path}`,
    web_url: `http://example.com/${GROUP}/${path}`,
    ssh_url_to_repo: `git@example.com:${GROUP}/${path}.git`,
    http_url_to_repo: `http://example.com/${GROUP}/${path}.git`,
  });
}

/** One of a project's lists: how many, the time of rank k (newest first), and the item. */
interface Ranked {
  count: number;
  at: (k: number) => number;
  item: (k: number) => unknown;
}

function mergeRequests(world: World, p: number): Ranked {
  const { sizes } = world;
  const count = share(sizes.merge_requests, sizes.projects, p);
  const first = before(sizes.merge_requests, sizes.projects, p);
  const at = (k: number) => spreadTime(world, k, count, p);
  return { count, at, item: (k) => mergeRequest(world, p, count, first + k, k, at(k)) };
}

function mergeRequest(world: World, p: number, count: number, g: number, k: number, updated: number) {
  const fate = g % 10;
  const closed = fate < 9 ? updated - HOUR_MS : null;
  const iid = count - k;
  return varied(mergeRequestTemplates[g % mergeRequestTemplates.length], {
    id: 300_000_000 + g,
    iid,
    project_id: PROJECT_ID + p,
    state: closed === null ? 'opened' : fate < 8 ? 'merged' : 'closed',
    created_at: new Date(updated - (1 + (g % 5)) * DAY_MS).toISOString(),
    updated_at: new Date(updated).toISOString(),
    merged_at: closed !== null && fate < 8 ? new Date(closed).toISOString() : null,
    closed_at: closed !== null && fate === 8 ? new Date(closed).toISOString() : null,
    sha: shaOf(p, iid, 0),
    merge_commit_sha: fate < 8 ? shaOf(p, iid, 1) : null,
    web_url: `https://gitlab.com/${GROUP}/service-${p}/-/merge_requests/${iid}`,
    author: user(world, g),
    merged_by: fate < 8 ? user(world, g + 1) : null,
    closed_by: fate === 8 ? user(world, g + 1) : null,
  });
}

/** A merge request's notes, oldest first: its comments, then its approvals' system notes. */
function notesOf(world: World, p: number, iid: number) {
  const { sizes } = world;
  const count = share(sizes.merge_requests, sizes.projects, p);
  const k = count - iid;
  const g = before(sizes.merge_requests, sizes.projects, p) + k;
  const created = spreadTime(world, k, count, p) - (1 + (g % 5)) * DAY_MS;
  const some = (kind: 'comments' | 'approvals') => ({ count: share(sizes[kind], sizes.merge_requests, g), first: before(sizes[kind], sizes.merge_requests, g) });
  const comments = some('comments');
  const approvals = some('approvals');
  const note = (template: Record<string, unknown>, id: number, j: number) => {
    const at = iso(created + (j + 1) * HOUR_MS).replace('Z', '.000Z');
    return varied(template, { id, created_at: at, updated_at: at, noteable_id: 300_000_000 + g, noteable_iid: iid, author: user(world, g + 1 + j) });
  };
  return {
    notes: [
      ...Array.from({ length: comments.count }, (_, j) => note(commentTemplates[(comments.first + j) % commentTemplates.length], 600_000_000 + comments.first + j, j)),
      ...Array.from({ length: approvals.count }, (_, j) => note(approvalNoteTemplate, 700_000_000 + approvals.first + j, comments.count + j)),
    ],
    approvers: Array.from({ length: approvals.count }, (_, j) => user(world, g + 1 + comments.count + j)),
    g,
  };
}

function deployments(world: World, p: number): Ranked {
  const count = share(world.sizes.deployments, world.sizes.projects, p);
  const first = before(world.sizes.deployments, world.sizes.projects, p);
  const at = (k: number) => spreadTime(world, k, count, p);
  return {
    count,
    at,
    item: (k) => {
      const g = first + k;
      const template = deploymentTemplates[g % deploymentTemplates.length];
      const updated = at(k);
      return varied(template, { id: 13_000_000 + g, iid: count - k, sha: shaOf(p, g, 2), created_at: new Date(updated - 200_000).toISOString(), updated_at: new Date(updated).toISOString(), user: user(world, g) });
    },
  };
}

function issues(world: World, p: number): Ranked {
  const count = share(world.sizes.issues, world.sizes.projects, p);
  const first = before(world.sizes.issues, world.sizes.projects, p);
  const at = (k: number) => spreadTime(world, k, count, p + 7);
  return {
    count,
    at,
    item: (k) => {
      const g = first + k;
      const updated = at(k);
      const template = issueTemplates[g % issueTemplates.length];
      return varied(template, {
        id: 22_000_000 + g,
        iid: count - k,
        project_id: PROJECT_ID + p,
        created_at: new Date(updated - (2 + (g % 9)) * DAY_MS).toISOString(),
        updated_at: new Date(updated).toISOString(),
        closed_at: template.state === 'closed' ? new Date(updated - HOUR_MS).toISOString() : null,
        web_url: `https://gitlab.com/${GROUP}/service-${p}/-/issues/${count - k}`,
        author: user(world, g),
        assignees: (template.assignees as unknown[]).map((_, j) => user(world, g + j)),
        closed_by: template.state === 'closed' ? user(world, g + 1) : null,
      });
    },
  };
}

/** GitLab's offset paging headers; `more` says whether a next page follows. */
function page(url: URL, body: unknown[], pageNumber: number, perPage: number, more: boolean): FakeAnswer {
  const headers: Record<string, string> = { 'x-page': String(pageNumber), 'x-per-page': String(perPage), 'x-next-page': more ? String(pageNumber + 1) : '', 'x-prev-page': pageNumber > 1 ? String(pageNumber - 1) : '' };
  if (more) {
    const next = new URL(url);
    next.searchParams.set('page', String(pageNumber + 1));
    headers.link = `<${next.href}>; rel="next"`;
  }
  return { status: 200, body, headers };
}

/** A list newest change first within `updated_after` and `updated_before` (both inclusive), a page of it. */
function listed(url: URL, list: Ranked): FakeAnswer {
  const after = url.searchParams.get('updated_after');
  const beforeAt = url.searchParams.get('updated_before');
  // Ranks run newest to oldest: the first at or before `updated_before`, the last at or after `updated_after`.
  const firstRank = beforeAt === null ? 0 : firstAtOrBelow(list, Date.parse(beforeAt));
  const endRank = after === null ? list.count : firstAtOrBelow(list, Date.parse(after) - 1);
  const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
  const pageNumber = Number(url.searchParams.get('page') ?? 1);
  const from = firstRank + (pageNumber - 1) * perPage;
  const to = Math.min(endRank, from + perPage);
  return page(url, Array.from({ length: Math.max(0, to - from) }, (_, i) => list.item(from + i)), pageNumber, perPage, to < endRank);
}

/** The first rank whose time is at or before `ms` (times fall as ranks rise). */
function firstAtOrBelow(list: Ranked, ms: number): number {
  let [lo, hi] = [0, list.count];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list.at(mid) <= ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function gitlabApi(world: World): FakeApi {
  const projects = world.sizes.projects;
  return ({ url, headers }) => {
    if (headers['private-token'] !== world.token) return { status: 401, body: { message: '401 Unauthorized' } };
    const route = url.pathname.replace(/^\/api\/v4\//, '');
    if (route === 'projects') {
      const after = Math.max(-1, Number(url.searchParams.get('id_after') ?? 0) - PROJECT_ID);
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
      const from = after + 1;
      const to = Math.min(projects, from + perPage);
      return page(url, Array.from({ length: Math.max(0, to - from) }, (_, i) => project(from + i)), 1, perPage, to < projects);
    }
    const m = /^projects\/([^/]+)(\/.*)?$/.exec(route);
    const key = m ? decodeURIComponent(m[1]) : '';
    const p = key.startsWith(`${GROUP}/service-`) ? Number(key.slice(`${GROUP}/service-`.length)) : Number(key) - PROJECT_ID;
    if (!m || !Number.isInteger(p) || p < 0 || p >= projects) return notFound({ message: '404 Project Not Found' });
    const rest = m[2] ?? '';
    if (rest === '') return { status: 200, body: project(p) };
    if (rest === '/merge_requests') return listed(url, mergeRequests(world, p));
    const ofMergeRequest = /^\/merge_requests\/(\d+)\/(notes|approvals)$/.exec(rest);
    if (ofMergeRequest) {
      const of = notesOf(world, p, Number(ofMergeRequest[1]));
      if (ofMergeRequest[2] === 'approvals') {
        const mr = mergeRequest(world, p, share(world.sizes.merge_requests, projects, p), of.g, share(world.sizes.merge_requests, projects, p) - Number(ofMergeRequest[1]), 0);
        return { status: 200, body: varied(approvalsTemplate, { id: mr.id, iid: mr.iid, project_id: PROJECT_ID + p, approved_by: of.approvers.map((u) => ({ user: { ...approvalsTemplate.approved_by[0].user, ...u } })) }) };
      }
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
      const pageNumber = Number(url.searchParams.get('page') ?? 1);
      const from = (pageNumber - 1) * perPage;
      return page(url, of.notes.slice(from, from + perPage), pageNumber, perPage, from + perPage < of.notes.length);
    }
    if (rest === '/deployments') return listed(url, deployments(world, p));
    if (rest === '/issues') return listed(url, issues(world, p));
    return notFound({ error: '404 Not Found' });
  };
}
