/**
 * GitHub's REST API as the history row serves it (src/integrations/github/history*.ts reads it): the repositories the
 * token reads, and each one's pull requests (newest change first) with their reviews and review comments, its review
 * comments, its deployments with their statuses and its issues, paged as GitHub pages them (`per_page`, `page`, a
 * `Link` to the next page naming the repository by its id); and its GraphQL API's pull requests with their reviews,
 * the same objects in GraphQL's spelling (as test/support/peers/github/fakeGitHubApi.ts makes them). Every object is a recorded one (test/fixtures/history/github/README.md:
 * Apache DevLake's recording of panjf2000/ants, GitHub's documented deployment and status) with its ids, numbers,
 * people and times replaced; the lists' items take the recorded items in turn.
 */
import { recorded, recordedList, varied } from './fixtures';
import { before, FakeAnswer, FakeApi, iso, memberAt, notFound, share, shaOf, spreadTime, tokenOf, World } from './world';

const OWNER = 'bench-org';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const repositoryTemplate = recorded('fixtures/history/github/devlakeRepository.json');
const pullTemplates = recordedList('fixtures/history/github/devlakePullRequests.json');
const reviewTemplates = recordedList('fixtures/history/github/devlakeReviews.json');
const commentTemplates = recordedList('fixtures/history/github/devlakeReviewComments.json');
const issueTemplates = recordedList('fixtures/history/github/devlakeIssues.json').filter((i) => i.pull_request === undefined);
const documented = recorded('fixtures/history/github/githubDocs.json');

/** The sizes of a year of a busy organization on GitHub (docs/performance.md#the-history-import-rows). */
export const githubSizes = (quick: boolean) =>
  quick
    ? { repositories: 20, pull_requests: 2_000, reviews: 6_000, review_comments: 500, deployments: 200, issues: 200 }
    : { repositories: 200, pull_requests: 30_000, reviews: 100_000, review_comments: 15_000, deployments: 4_000, issues: 5_000 };

const GITHUB_NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' };

function user(world: World, i: number) {
  const member = memberAt(world, i);
  return { login: member.login, id: member.providerId, type: 'User' };
}

function repository(world: World, r: number) {
  const name = `service-${String(r).padStart(3, '0')}`;
  return varied(repositoryTemplate, { id: 500_000_000 + r, node_id: `R_bench${r}`, name, full_name: `${OWNER}/${name}`, owner: { ...repositoryTemplate.owner, login: OWNER } });
}

/** Repository `r`'s pull request of rank `k` (0: most recently changed), its number counting up with age reversed. */
function pullRequest(world: World, r: number, k: number) {
  const { sizes } = world;
  const count = share(sizes.pull_requests, sizes.repositories, r);
  const g = before(sizes.pull_requests, sizes.repositories, r) + k;
  const updated = spreadTime(world, k, count, r);
  const created = updated - (1 + (g % 5)) * DAY_MS;
  // Most merged, some closed unmerged, some still open: as a busy repository's year has them.
  const fate = g % 10;
  const closed = fate < 9 ? updated - HOUR_MS : null;
  const author = g % world.members.length;
  const number = count - k;
  const headSha = shaOf(r, number, 0);
  const listed = varied(pullTemplates[g % pullTemplates.length], {
    id: 900_000_000 + g,
    number,
    state: closed === null ? 'open' : 'closed',
    created_at: iso(created),
    updated_at: iso(updated),
    closed_at: closed === null ? null : iso(closed),
    merged_at: fate < 8 && closed !== null ? iso(closed) : null,
    merge_commit_sha: shaOf(r, number, 1),
    user: user(world, author),
    head: { ...pullTemplates[0].head, sha: headSha },
  });
  return { listed, g, author, created, updated, number, headSha };
}

/**
 * A pull request's reviews, by members other than its author, an hour apart from its opening; or its review comments,
 * two hours before its last change, a minute apart (so a repository's comments, newest change first, come in its pull
 * requests' order).
 */
function reviewsOf(world: World, pull: ReturnType<typeof pullRequest>, r: number, kind: 'reviews' | 'review_comments') {
  const total = world.sizes[kind];
  const count = share(total, world.sizes.pull_requests, pull.g);
  const first = before(total, world.sizes.pull_requests, pull.g);
  const url = `https://api.github.com/repos/${OWNER}/${repository(world, r).name}/pulls/${pull.number}`;
  return Array.from({ length: count }, (_, j) => {
    const fields = { id: (kind === 'reviews' ? 3_000_000_000 : 4_000_000_000) + first + j, pull_request_url: url, user: user(world, pull.author + 1 + j) };
    if (kind === 'reviews') return varied(reviewTemplates[(first + j) % reviewTemplates.length], { ...fields, submitted_at: iso(pull.created + (j + 1) * HOUR_MS), commit_id: pull.headSha });
    const at = iso(pull.updated - 2 * HOUR_MS - j * 60_000);
    return varied(commentTemplates[(first + j) % commentTemplates.length], { ...fields, created_at: at, updated_at: at, commit_id: pull.headSha, pull_request_review_id: 5_000_000_000 + first + j });
  });
}

/** A repository's review comments, most recently changed first (GET .../pulls/comments). */
function repositoryComments(world: World, r: number) {
  const { sizes } = world;
  const firstPull = before(sizes.pull_requests, sizes.repositories, r);
  const pulls = share(sizes.pull_requests, sizes.repositories, r);
  const firstComment = before(sizes.review_comments, sizes.pull_requests, firstPull);
  const count = before(sizes.review_comments, sizes.pull_requests, firstPull + pulls) - firstComment;
  const item = (i: number) => {
    const c = firstComment + i;
    // The pull request whose comments hold the c-th: the last whose first comment is at or before it.
    let [lo, hi] = [firstPull, firstPull + pulls - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (before(sizes.review_comments, sizes.pull_requests, mid) <= c) lo = mid;
      else hi = mid - 1;
    }
    const pull = pullRequest(world, r, lo - firstPull);
    return reviewsOf(world, pull, r, 'review_comments')[c - before(sizes.review_comments, sizes.pull_requests, lo)];
  };
  return { count, item };
}

/** A REST user as GraphQL names the actor. */
const actor = (u: { login: string; id: number }) => ({ __typename: 'User', login: u.login, databaseId: u.id });

/** A pull request as GitHub's GraphQL API gives the fields the importer asks (src/integrations/github/historyGraphql.ts). */
function graphqlPullRequest(pull: ReturnType<typeof pullRequest>) {
  const rest = pull.listed;
  return {
    number: pull.number,
    title: rest.title,
    state: rest.merged_at ? 'MERGED' : String(rest.state).toUpperCase(),
    body: rest.body,
    createdAt: rest.created_at,
    updatedAt: rest.updated_at,
    closedAt: rest.closed_at,
    mergedAt: rest.merged_at,
    headRefOid: pull.headSha,
    mergeCommit: rest.merged_at ? { oid: rest.merge_commit_sha } : null,
    author: actor(rest.user),
  };
}

/**
 * GitHub's GraphQL API as the importer asks it: a repository's pull requests, most recently changed first, `first`
 * after the `after` cursor, each with its first `reviews`; or the pull requests its aliases name by number.
 */
function graphql(world: World, body: string, r: number | null): FakeAnswer {
  const { query, variables } = JSON.parse(body) as { query: string; variables: Record<string, unknown> };
  if (r === null) {
    const message = `Could not resolve to a Repository with the name '${String(variables.owner)}/${String(variables.name)}'.`;
    return { status: 200, body: { data: { repository: null }, errors: [{ type: 'NOT_FOUND', path: ['repository'], locations: [{ line: 2, column: 3 }], message }] } };
  }
  const count = share(world.sizes.pull_requests, world.sizes.repositories, r);
  if (!query.includes('pullRequests(')) {
    const named = [...query.matchAll(/(\w+): pullRequest\(number: (\d+)\)/g)].map(([, alias, number]) => {
      const k = count - Number(number);
      return [alias, k >= 0 && k < count ? graphqlPullRequest(pullRequest(world, r, k)) : null];
    });
    return { status: 200, body: { data: { repository: Object.fromEntries(named) } } };
  }
  const from = typeof variables.after === 'string' ? Number(Buffer.from(variables.after, 'base64').toString().replace(/^cursor:v2:/, '')) + 1 : 0;
  const first = Math.min(100, Number(variables.first));
  const reviewsAsked = Math.min(100, Number(variables.reviews));
  const nodes = Array.from({ length: Math.max(0, Math.min(first, count - from)) }, (_, i) => {
    const pull = pullRequest(world, r, from + i);
    const reviews = reviewsOf(world, pull, r, 'reviews').map((review) => ({ databaseId: review.id, state: review.state, submittedAt: review.submitted_at, author: actor(review.user) }));
    return { ...graphqlPullRequest(pull), reviews: { pageInfo: { hasNextPage: reviews.length > reviewsAsked }, nodes: reviews.slice(0, reviewsAsked) } };
  });
  const endCursor = nodes.length ? Buffer.from(`cursor:v2:${from + nodes.length - 1}`).toString('base64') : null;
  return { status: 200, body: { data: { repository: { pullRequests: { pageInfo: { endCursor, hasNextPage: from + nodes.length < count }, nodes } } } } };
}

function deployment(world: World, r: number, k: number) {
  const count = share(world.sizes.deployments, world.sizes.repositories, r);
  const g = before(world.sizes.deployments, world.sizes.repositories, r) + k;
  const created = spreadTime(world, k, count, r);
  return varied(documented.deployments[0], { id: 700_000_000 + g, node_id: `DE_bench${g}`, sha: shaOf(r, g, 2), created_at: iso(created), updated_at: iso(created), creator: user(world, g) });
}

function deploymentStatus(world: World, id: number) {
  const g = id - 700_000_000;
  const r = repositoryOfDeployment(world, g);
  const at = spreadTime(world, g - before(world.sizes.deployments, world.sizes.repositories, r), share(world.sizes.deployments, world.sizes.repositories, r), r) + 10 * 60_000;
  return varied(documented.deploymentStatuses[0], { id: 800_000_000 + g, node_id: `DES_bench${g}`, created_at: iso(at), updated_at: iso(at), creator: user(world, g) });
}

function repositoryOfDeployment(world: World, g: number): number {
  let r = Math.min(world.sizes.repositories - 1, Math.floor((g * world.sizes.repositories) / world.sizes.deployments));
  while (r > 0 && before(world.sizes.deployments, world.sizes.repositories, r) > g) r--;
  while (before(world.sizes.deployments, world.sizes.repositories, r + 1) <= g) r++;
  return r;
}

function issue(world: World, r: number, k: number) {
  const count = share(world.sizes.issues, world.sizes.repositories, r);
  const g = before(world.sizes.issues, world.sizes.repositories, r) + k;
  const updated = spreadTime(world, k, count, r + 7);
  const closed = g % 3 === 0 ? null : updated - HOUR_MS;
  const number = share(world.sizes.pull_requests, world.sizes.repositories, r) + count - k;
  return varied(issueTemplates[g % issueTemplates.length], {
    id: 600_000_000 + g,
    number,
    state: closed === null ? 'open' : 'closed',
    created_at: iso(updated - (2 + (g % 9)) * DAY_MS),
    updated_at: iso(updated),
    closed_at: closed === null ? null : iso(closed),
    user: user(world, g),
  });
}

/** A page of a list of `count` items, with GitHub's `Link` to the next one under `list` (the repository by its id). */
function paged(url: URL, base: string, list: string, count: number, item: (k: number) => unknown): FakeAnswer {
  const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
  const page = Number(url.searchParams.get('page') ?? 1);
  const from = (page - 1) * perPage;
  const body = Array.from({ length: Math.max(0, Math.min(perPage, count - from)) }, (_, i) => item(from + i));
  const last = Math.max(1, Math.ceil(count / perPage));
  if (page >= last) return { status: 200, body };
  const at = (n: number) => {
    const target = new URL(`${base}${list}`);
    url.searchParams.forEach((value, name) => target.searchParams.set(name, value));
    target.searchParams.set('page', String(n));
    return target.href;
  };
  return { status: 200, body, headers: { link: `<${at(page + 1)}>; rel="next", <${at(last)}>; rel="last"` } };
}

export function githubApi(world: World): FakeApi {
  const repositories = world.sizes.repositories;
  const byName = (name: string) => {
    const m = /^service-(\d{3})$/.exec(name);
    return m && Number(m[1]) < repositories ? Number(m[1]) : null;
  };
  return ({ method, url, headers, body }, base) => {
    if (tokenOf(headers.authorization) !== world.token) return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
    if (method === 'POST' && url.pathname === '/graphql') {
      const { variables } = JSON.parse(body) as { variables: { owner?: string; name?: string } };
      return graphql(world, body, variables.owner === OWNER ? byName(String(variables.name)) : null);
    }
    if (url.pathname === '/user/repos') return paged(url, base, '/user/repos', repositories, (r) => repository(world, r));
    const m = /^\/(?:repos\/bench-org\/([^/]+)|repositories\/(\d+))(\/.*)?$/.exec(url.pathname);
    const r = m ? (m[1] !== undefined ? byName(m[1]) : Number(m[2]) - 500_000_000) : null;
    if (!m || r === null || r < 0 || r >= repositories) return notFound(GITHUB_NOT_FOUND);
    const rest = m[3] ?? '';
    const list = `/repositories/${500_000_000 + r}${rest}`;
    if (rest === '') return { status: 200, body: repository(world, r) };
    if (rest === '/pulls') return paged(url, base, list, share(world.sizes.pull_requests, repositories, r), (k) => pullRequest(world, r, k).listed);
    if (rest === '/pulls/comments') {
      const comments = repositoryComments(world, r);
      return paged(url, base, list, comments.count, comments.item);
    }
    const ofPull = /^\/pulls\/(\d+)\/(reviews|comments)$/.exec(rest);
    if (ofPull) {
      const count = share(world.sizes.pull_requests, repositories, r);
      const k = count - Number(ofPull[1]);
      if (k < 0 || k >= count) return notFound(GITHUB_NOT_FOUND);
      const items = reviewsOf(world, pullRequest(world, r, k), r, ofPull[2] === 'reviews' ? 'reviews' : 'review_comments');
      return paged(url, base, list, items.length, (i) => items[i]);
    }
    if (rest === '/deployments') return paged(url, base, list, share(world.sizes.deployments, repositories, r), (k) => deployment(world, r, k));
    const statuses = /^\/deployments\/(\d+)\/statuses$/.exec(rest);
    if (statuses) return { status: 200, body: [deploymentStatus(world, Number(statuses[1]))] };
    if (rest === '/issues') return paged(url, base, list, share(world.sizes.issues, repositories, r), (k) => issue(world, r, k));
    return notFound(GITHUB_NOT_FOUND);
  };
}
