/**
 * Bitbucket Cloud's REST API 2.0 as the history row serves it, under `/2.0` as Bitbucket does
 * (src/integrations/bitbucket/history.ts reads it): the repositories the token is a member of, each one's pull
 * requests newest change first, and each pull request's activity log, newest first, in the API's page envelope
 * (`pagelen`, `values`, `next`). Every object is a recorded one
 * (test/fixtures/history/bitbucket/README.md: Apache DevLake's recording of likyh/likyhphp and its pull requests,
 * Faros's of an activity log) with its ids, people and times replaced; a pull request is the recorded merged or open
 * one, as its fate says. A log holds comments and approvals by members other than the author, the update that
 * opened it and, for every other one, the update of a push.
 */
import { recorded, recordedList, varied } from './fixtures';
import { before, FakeAnswer, FakeApi, memberAt, notFound, share, shaOf, spreadTime, tokenOf, World } from './world';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const WORKSPACE = 'bench-workspace';

const repositoryTemplate = recorded('fixtures/history/bitbucket/devlakeRepository.json');
const pullRequests = recordedList('fixtures/history/bitbucket/devlakePullRequests.json');
const merged = pullRequests.find((p) => p.state === 'MERGED')!;
const open = pullRequests.find((p) => p.state === 'OPEN')!;
const log = recordedList('fixtures/history/bitbucket/farosActivity.json');
const commentEntry = log.find((e) => e.comment)!;
const approvalEntry = log.find((e) => e.approval)!;
const updateEntry = log.find((e) => e.update)!;

export const bitbucketSizes = (quick: boolean) =>
  quick
    ? { repositories: 5, pull_requests: 400, comments: 800, approvals: 400, pushes: 200 }
    : { repositories: 100, pull_requests: 10_000, comments: 20_000, approvals: 10_000, pushes: 5_000 };

/** A member as Bitbucket names an account: their login bound on the git app is the Atlassian account id. */
function account(world: World, i: number) {
  const m = memberAt(world, i);
  return { ...commentEntry.comment.user, display_name: m.login, nickname: m.login, account_id: m.login, uuid: `{00000000-0000-4000-8000-${String(m.providerId).padStart(12, '0')}}` };
}

const slug = (r: number) => `service-${String(r).padStart(3, '0')}`;
const uuidOf = (r: number) => `{00000000-0000-4000-9000-${String(r).padStart(12, '0')}}`;
const bitbucketTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000+00:00');

function repository(r: number) {
  return varied(repositoryTemplate, { uuid: uuidOf(r), full_name: `${WORKSPACE}/${slug(r)}`, name: slug(r), slug: slug(r) });
}

function pullRequest(world: World, r: number, k: number) {
  const { sizes } = world;
  const count = share(sizes.pull_requests, sizes.repositories, r);
  const g = before(sizes.pull_requests, sizes.repositories, r) + k;
  const updated = spreadTime(world, k, count, r);
  const created = updated - (1 + (g % 5)) * DAY_MS;
  const id = count - k;
  const isMerged = g % 10 < 8;
  const template = isMerged ? merged : open;
  const side = (end: Record<string, unknown>, hash: string) => ({ ...end, commit: { type: 'commit', hash }, repository: { type: 'repository', full_name: `${WORKSPACE}/${slug(r)}`, name: slug(r), uuid: uuidOf(r) } });
  const listed = varied(template, {
    id,
    created_on: bitbucketTime(created),
    updated_on: bitbucketTime(updated),
    author: account(world, g),
    closed_by: isMerged ? account(world, g + 1) : null,
    merge_commit: isMerged ? { type: 'commit', hash: shaOf(r, id, 1).slice(0, 12) } : null,
    source: side(template.source, shaOf(r, id, pushes(world, g) ? 3 : 0).slice(0, 12)),
    destination: side(template.destination, shaOf(r, 0, 4).slice(0, 12)),
  });
  return { listed, g, id, created, opening: shaOf(r, id, 0).slice(0, 12) };
}

const pushes = (world: World, g: number) => share(world.sizes.pushes, world.sizes.pull_requests, g);

/** A pull request's log, newest first: its approvals, comments and updates, an hour apart from its opening. */
function activity(world: World, r: number, pr: ReturnType<typeof pullRequest>) {
  const { sizes } = world;
  const some = (kind: 'comments' | 'approvals') => ({ count: share(sizes[kind], sizes.pull_requests, pr.g), first: before(sizes[kind], sizes.pull_requests, pr.g) });
  const comments = some('comments');
  const approvals = some('approvals');
  const ref = { type: 'pullrequest', id: pr.id, title: pr.listed.title };
  const at = (j: number) => bitbucketTime(pr.created + j * HOUR_MS);
  const entries: unknown[] = [
    { ...updateEntry, update: { ...updateEntry.update, date: at(0), author: account(world, pr.g), source: { ...updateEntry.update.source, commit: { type: 'commit', hash: pr.opening } } }, pull_request: ref },
  ];
  if (pushes(world, pr.g)) {
    entries.push({ ...updateEntry, update: { ...updateEntry.update, date: at(1), author: account(world, pr.g), source: { ...updateEntry.update.source, commit: { type: 'commit', hash: shaOf(r, pr.id, 3).slice(0, 12) } } }, pull_request: ref });
  }
  for (let j = 0; j < comments.count; j++) {
    const c = { ...commentEntry.comment, id: 900_000_000 + comments.first + j, created_on: at(2 + j), updated_on: at(2 + j), user: account(world, pr.g + 1 + j), pullrequest: ref };
    entries.push({ ...commentEntry, comment: c, pull_request: ref });
  }
  for (let j = 0; j < approvals.count; j++) {
    entries.push({ ...approvalEntry, approval: { ...approvalEntry.approval, date: at(2 + comments.count + j), user: account(world, pr.g + 1 + comments.count + j), pullrequest: ref }, pull_request: ref });
  }
  return entries.reverse();
}

/** A page of a listing of `count`, `pagelen` at a time, with the API's `next` address. */
function paged(url: URL, count: number, item: (i: number) => unknown): FakeAnswer {
  const pagelen = Math.min(100, Number(url.searchParams.get('pagelen') ?? 10));
  const pageNumber = Number(url.searchParams.get('page') ?? 1);
  const from = (pageNumber - 1) * pagelen;
  const values = Array.from({ length: Math.max(0, Math.min(pagelen, count - from)) }, (_, i) => item(from + i));
  const body: Record<string, unknown> = { pagelen, page: pageNumber, size: count, values };
  if (from + pagelen < count) {
    const next = new URL(url);
    next.searchParams.set('page', String(pageNumber + 1));
    body.next = next.href;
  }
  return { status: 200, body };
}

export function bitbucketApi(world: World): FakeApi {
  const repositories = world.sizes.repositories;
  return ({ url, headers }) => {
    if (tokenOf(headers.authorization) !== world.token) return { status: 401, body: { type: 'error', error: { message: 'Access token expired. Use your refresh token to obtain a new access token.' } } };
    // Under /2.0, as Bitbucket's own API root.
    const path = url.pathname.replace(/^\/2\.0\//, '/');
    if (path === '/repositories') return paged(url, repositories, repository);
    const m = /^\/repositories\/bench-workspace\/service-(\d{3})(\/.*)?$/.exec(path);
    const r = m ? Number(m[1]) : -1;
    if (!m || r >= repositories) return notFound({ type: 'error', error: { message: 'Repository bench-workspace/… not found' } });
    const rest = m[2] ?? '';
    if (rest === '') return { status: 200, body: repository(r) };
    const count = share(world.sizes.pull_requests, repositories, r);
    if (rest === '/pullrequests') return paged(url, count, (k) => pullRequest(world, r, k).listed);
    const ofPull = /^\/pullrequests\/(\d+)\/activity$/.exec(rest);
    const k = ofPull ? count - Number(ofPull[1]) : -1;
    if (!ofPull || k < 0 || k >= count) return notFound({ type: 'error', error: { message: 'Not found' } });
    const entries = activity(world, r, pullRequest(world, r, k));
    return paged(url, entries.length, (i) => entries[i]);
  };
}
