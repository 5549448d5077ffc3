import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, ids, byCreatedDesc, byCreatedAsc, listEnvelope as list, textOrder } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { commitItem, find } from '../support/data/items';
import { Commit, GitApp, PullRequest, Repository } from '../../db/models';
import { FIXTURE_GIT_APPS } from '../../db/demo/fixtures/gitApps';
import { FIXTURE_PULL_REQUESTS } from '../../db/demo/fixtures/pullRequests';
import { FIXTURE_REPOSITORIES } from '../../db/demo/fixtures/repositories';

/**
 * The /v1/git endpoints: git apps, repositories, commits and pull requests of one repository or of `all` the
 * repositories of a git app. Exact shapes (docs/api.md#items-and-their-fields), sort whitelists, 404/403 messages and access (docs/api.md#who-sees-what).
 */

const G = DEMO.gitApps;
const R = DEMO.repos;
const C = DEMO.commits;
const P = DEMO.pullRequests;
const O = DEMO.orgs;

// docs/api.md#items-and-their-fields field lists, sorted
const FIELDS = {
  gitApp: ['created_at', 'id', 'is_active', 'name', 'organization_id', 'provider'],
  repository: ['created_at', 'default_branch', 'full_name', 'git_app_id', 'id', 'is_private', 'name'],
  commit: ['additions', 'ai_assisted', 'author_id', 'author_name', 'created_at', 'deletions', 'id', 'message', 'repository_id', 'sha'],
  pullRequest: ['additions', 'ai_assisted', 'author_id', 'closed_at', 'created_at', 'deletions', 'id', 'merged_at', 'number', 'repository_id', 'state', 'title'],
};
const FORBIDDEN_GIT_APP = 'You do not have permission to access this git app';

const gitAppItem = (id: string) => ({ ...find(FIXTURE_GIT_APPS, id) });
const repositoryItem = (id: string) => {
  const { organization_id: _internal, ...item } = find(FIXTURE_REPOSITORIES, id);
  return item;
};
const pullRequestItem = (id: string) => {
  const { git_app_id: _app, organization_id: _org, ...item } = find(FIXTURE_PULL_REQUESTS, id);
  // The fixtures' pull requests came with no line counts and no AI tool's mark.
  return { ...item, additions: null, deletions: null, ai_assisted: false };
};

let t: TestApp;
const tokens: Record<string, string> = {};

const { ok, all, read } = actorClient(() => t, tokens);
const { byText } = textOrder(() => t.runtime.sequelize.getDialect());
const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function dbGitApps(organizationIds: string[]): Promise<Body[]> {
  return (await GitApp.findAll({ where: { organization_id: organizationIds } })).map((g) => ({
    id: g.id,
    organization_id: g.organization_id,
    provider: g.provider,
    name: g.name,
    is_active: Boolean(g.is_active),
    created_at: iso(g.created_at),
  }));
}
async function dbRepositories(gitAppId: string): Promise<Body[]> {
  return (await Repository.findAll({ where: { git_app_id: gitAppId } })).map((r) => ({
    id: r.id,
    git_app_id: r.git_app_id,
    name: r.name,
    full_name: r.full_name,
    default_branch: r.default_branch,
    is_private: Boolean(r.is_private),
    created_at: iso(r.created_at),
  }));
}
async function dbPullRequests(where: { repository_id: string } | { git_app_id: string }): Promise<Body[]> {
  return (await PullRequest.findAll({ where })).map((p) => ({
    id: p.id,
    repository_id: p.repository_id,
    number: p.number,
    title: p.title,
    state: p.state,
    author_id: p.author_id,
    additions: p.additions,
    deletions: p.deletions,
    ai_assisted: Boolean(p.ai_assisted),
    created_at: iso(p.created_at),
    merged_at: iso(p.merged_at),
    closed_at: iso(p.closed_at),
  }));
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
  for (const who of ['ada', 'grace', 'linus', 'outsider', 'margaret', 'hedy'] as const) {
    tokens[who] = await t.token({ user: DEMO.emails[who] });
  }
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [O.globex] });
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [DEMO.teams.platform] });
});
afterAll(async () => t.close());

describe('GET /v1/git/apps', () => {
  test('the git apps of the caller\'s organizations, exactly', async () => {
    const body = await read('/v1/git/apps?per_page=100', 'linus');
    expectList(body, FIELDS.gitApp);
    expect(body).toEqual(list((await dbGitApps([O.acme])).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'gapp_acme_github',
      organization_id: 'org_acme',
      provider: 'github',
      name: 'Acme GitHub',
      is_active: true,
      created_at: '2024-01-10T10:00:00.000Z',
    });
    expect(ids(body)).not.toContain(G.globexGitlab);
    const globex = await read('/v1/git/apps?per_page=100', 'outsider');
    expect(globex).toEqual(list((await dbGitApps([O.globex])).sort(byCreatedDesc), { per_page: 100 }));
    expect(globex.data).toContainEqual(gitAppItem(G.globexGitlab));
  });

  test('margaret sees both organizations\' git apps; token scopes narrow the list', async () => {
    const both = await read('/v1/git/apps?per_page=100', 'margaret');
    expect(both).toEqual(list((await dbGitApps([O.acme, O.globex])).sort(byCreatedDesc), { per_page: 100 }));
    expect(await read('/v1/git/apps?per_page=100', 'margaretGlobex')).toEqual(
      list((await dbGitApps([O.globex])).sort(byCreatedDesc), { per_page: 100 }),
    );
    expect(await read('/v1/git/apps?per_page=100', 'adaPlatform')).toEqual(await read('/v1/git/apps?per_page=100', 'ada'));
  });

  test('sort=name; other sorts are 400', async () => {
    const apps = await dbGitApps([O.acme, O.globex]);
    expect(await read('/v1/git/apps?sort=name&order=asc&per_page=100', 'margaret')).toEqual(
      list([...apps].sort(byText('name', 'asc')), { sort: 'name', order: 'asc', per_page: 100 }),
    );
    expect(await read('/v1/git/apps?sort=name&fields=id,provider&per_page=100', 'margaret')).toEqual(
      list([...apps].sort(byText('name', 'desc')).map(({ id, provider }) => ({ id, provider })), { sort: 'name', per_page: 100 }),
    );
    expectError(await t.get('/v1/git/apps?sort=provider', tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, name');
  });
});

describe('GET /v1/git/apps/{id}/repositories', () => {
  test('the repositories of the git app, exactly', async () => {
    const body = await read(`/v1/git/apps/${G.acmeGithub}/repositories?per_page=100`, 'linus');
    expectList(body, FIELDS.repository);
    expect(body).toEqual(list((await dbRepositories(G.acmeGithub)).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'repo_acme_api',
      git_app_id: 'gapp_acme_github',
      name: 'api',
      full_name: 'acme/api',
      default_branch: 'main',
      is_private: true,
      created_at: '2024-01-15T09:00:00.000Z',
    });
    expect(body.data).toContainEqual(repositoryItem(R.acmeWeb));
    expect(ids(body)).not.toContain(R.globexCore);
    expect(await read(`/v1/git/apps/${G.globexGitlab}/repositories?per_page=100`, 'outsider')).toEqual(
      list((await dbRepositories(G.globexGitlab)).sort(byCreatedDesc), { per_page: 100 }),
    );
  });

  test('the api/web created_at tie is broken by id in the list\'s direction', async () => {
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories?created_at[eq]=2024-01-15`, 'ada')).toEqual(
      list([repositoryItem(R.acmeWeb), repositoryItem(R.acmeApi)]),
    );
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories?created_at[eq]=2024-01-15&order=asc`, 'ada')).toEqual(
      list([repositoryItem(R.acmeApi), repositoryItem(R.acmeWeb)], { order: 'asc' }),
    );
  });

  test('sort=name; other sorts are 400', async () => {
    const repos = await dbRepositories(G.acmeGithub);
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories?sort=name&order=asc`, 'ada')).toEqual(
      list([...repos].sort(byText('name', 'asc')), { sort: 'name', order: 'asc' }),
    );
    expectError(
      await t.get(`/v1/git/apps/${G.acmeGithub}/repositories?sort=full_name`, tokens.ada),
      400,
      'VALIDATION_ERROR',
      'sort must be one of: created_at, name',
    );
  });

  test('404 "Git app not found" and 403 for another organization\'s git app', async () => {
    expectError(await t.get('/v1/git/apps/gapp_nope/repositories', tokens.ada), 404, 'NOT_FOUND', 'Git app not found');
    expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
  });
});

describe('GET /v1/git/apps/{id}/repositories/{repo}/commits', () => {
  const apiCommits = [C.acmeApi3, C.acmeApi2, C.acmeApi1];

  test('the commits of one repository, exactly, newest first', async () => {
    const body = await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/commits?per_page=100`, 'linus');
    expectList(body, FIELDS.commit);
    const rows = await Commit.findAll({ where: { repository_id: R.acmeApi } });
    expect(body.meta).toEqual({ page: 1, per_page: 100, total: rows.length, total_pages: 1, sort: 'created_at', order: 'desc' });
    expect([...ids(body)].sort()).toEqual(rows.map((r) => r.id).sort());
    expect(body.data).toEqual([...body.data].sort(byCreatedDesc));
    for (const item of body.data) expect(item.repository_id).toBe(R.acmeApi);
    expect(body.data).toContainEqual({
      id: 'cmt_acme_api_3',
      repository_id: 'repo_acme_api',
      sha: 'a1d4c0de0000000000000000000000000000a003',
      message: 'Bump express from 4.18.2 to 4.19.2',
      author_id: null,
      author_name: 'dependabot[bot]',
      additions: 12,
      deletions: 12,
      ai_assisted: false,
      created_at: '2024-03-20T14:00:00.000Z',
    });
    for (const id of apiCommits) expect(body.data).toContainEqual(commitItem(id));
    expect(ids(body).filter((id: string) => id.startsWith('cmt_acme_api_'))).toEqual(apiCommits);
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeWeb}/commits?created_at[eq]=2024-01-16`, 'ada')).toEqual(
      list([commitItem(C.acmeWeb1)]),
    );
    expect(await read(`/v1/git/apps/${G.globexGitlab}/repositories/${R.globexCore}/commits?created_at[eq]=2024-02-16`, 'outsider')).toEqual(
      list([commitItem(C.globexCore1)]),
    );
  });

  test('the api_2/api_3 created_at tie is broken by id in the list\'s direction', async () => {
    const path = `/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/commits?created_at[eq]=2024-03-20`;
    expect(await read(path, 'ada')).toEqual(list([commitItem(C.acmeApi3), commitItem(C.acmeApi2)]));
    expect(await read(`${path}&order=asc`, 'ada')).toEqual(list([commitItem(C.acmeApi2), commitItem(C.acmeApi3)], { order: 'asc' }));
  });

  test('sort is created_at only', async () => {
    for (const sort of ['name', 'message', 'additions']) {
      expectError(
        await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/commits?sort=${sort}`, tokens.ada),
        400,
        'VALIDATION_ERROR',
        'sort must be one of: created_at',
      );
    }
  });

  test('404 "Repository not found": unknown, or a repository of another git app', async () => {
    const notFound = 'Repository not found';
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/repo_nope/commits`, tokens.ada), 404, 'NOT_FOUND', notFound);
    // margaret can access both git apps: a Globex repository under the Acme git app is still not found
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.globexCore}/commits`, tokens.margaret), 404, 'NOT_FOUND', notFound);
    expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories/${R.acmeApi}/commits`, tokens.margaret), 404, 'NOT_FOUND', notFound);
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.globexCore}/commits`, tokens.ada), 404, 'NOT_FOUND', notFound);
  });

  test('404 "Git app not found" and 403 for another organization\'s git app', async () => {
    expectError(await t.get(`/v1/git/apps/gapp_nope/repositories/${R.acmeApi}/commits`, tokens.ada), 404, 'NOT_FOUND', 'Git app not found');
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/commits`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
    expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories/${R.globexCore}/commits`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
    // access to the git app is decided before the repository is looked up
    expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories/repo_nope/commits`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
  });
});

describe('GET /v1/git/apps/{id}/repositories/{repo}/pull-requests', () => {
  const apiPullRequests = [P.acmeApi3, P.acmeApi2, P.acmeApi1];

  test('the pull requests of one repository, exactly, newest first', async () => {
    const body = await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?per_page=100`, 'linus');
    expectList(body, FIELDS.pullRequest);
    expect(body).toEqual(list((await dbPullRequests({ repository_id: R.acmeApi })).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'pr_acme_api_1',
      repository_id: 'repo_acme_api',
      number: 1,
      title: 'Add health check endpoint',
      state: 'merged',
      author_id: 'usr_linus',
      additions: null,
      deletions: null,
      ai_assisted: false,
      created_at: '2024-03-19T10:00:00.000Z',
      merged_at: '2024-03-20T14:00:00.000Z',
      closed_at: '2024-03-20T14:00:00.000Z',
    });
    for (const id of apiPullRequests) expect(body.data).toContainEqual(pullRequestItem(id));
    expect(ids(body).filter((id: string) => id.startsWith('pr_acme_api_'))).toEqual(apiPullRequests);
    expect(await read(`/v1/git/apps/${G.globexGitlab}/repositories/${R.globexCore}/pull-requests?created_at[eq]=2024-02-16`, 'hedy')).toEqual(
      list([pullRequestItem(P.globexCore1)]),
    );
  });

  test('merged_at and closed_at agree with the state', async () => {
    const fixtures = await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?created_at[gte]=2024-03-19&created_at[lt]=2024-03-22`, 'ada');
    expect(fixtures.data.filter((x: Body) => x.id.startsWith('pr_acme_api_'))).toEqual(apiPullRequests.map(pullRequestItem));
    const [closed, open, merged] = apiPullRequests.map((id) => fixtures.data.find((x: Body) => x.id === id));
    expect(open).toMatchObject({ state: 'open', merged_at: null, closed_at: null });
    expect(closed).toMatchObject({ state: 'closed', merged_at: null, closed_at: '2024-03-22T16:00:00.000Z', author_id: null });
    expect(merged).toMatchObject({ state: 'merged', merged_at: '2024-03-20T14:00:00.000Z', closed_at: '2024-03-20T14:00:00.000Z' });
    const everything = [
      ...(await all(`/v1/git/apps/${G.acmeGithub}/repositories/all/pull-requests`, 'ada')),
      ...(await all(`/v1/git/apps/${G.globexGitlab}/repositories/all/pull-requests`, 'outsider')),
    ];
    expect(new Set(everything.map((x) => x.state))).toEqual(new Set(['open', 'closed', 'merged']));
    for (const pr of everything) {
      if (pr.state === 'open') expect(pr).toMatchObject({ merged_at: null, closed_at: null });
      if (pr.state === 'closed') {
        expect(pr.merged_at).toBeNull();
        expect(pr.closed_at >= pr.created_at).toBe(true);
      }
      if (pr.state === 'merged') {
        expect(pr.merged_at).toBe(pr.closed_at);
        expect(pr.merged_at >= pr.created_at).toBe(true);
      }
    }
  });

  test('the pr_2/pr_3 created_at tie is broken by id in the list\'s direction', async () => {
    const path = `/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?created_at[eq]=2024-03-21`;
    expect(await read(path, 'ada')).toEqual(list([pullRequestItem(P.acmeApi3), pullRequestItem(P.acmeApi2)]));
    expect(await read(`${path}&order=asc`, 'ada')).toEqual(list([pullRequestItem(P.acmeApi2), pullRequestItem(P.acmeApi3)], { order: 'asc' }));
  });

  test('sort=title in both orders; other sorts are 400 naming created_at and title', async () => {
    const prs = await dbPullRequests({ repository_id: R.acmeApi });
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?sort=title&order=asc&per_page=100`, 'ada')).toEqual(
      list([...prs].sort(byText('title', 'asc')), { sort: 'title', order: 'asc', per_page: 100 }),
    );
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?sort=title&per_page=100`, 'ada')).toEqual(
      list([...prs].sort(byText('title', 'desc')), { sort: 'title', per_page: 100 }),
    );
    for (const sort of ['number', 'state', 'name']) {
      expectError(
        await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?sort=${sort}`, tokens.ada),
        400,
        'VALIDATION_ERROR',
        'sort must be one of: created_at, title',
      );
    }
  });

  test('404 and 403', async () => {
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/repo_nope/pull-requests`, tokens.ada), 404, 'NOT_FOUND', 'Repository not found');
    expectError(
      await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.globexCore}/pull-requests`, tokens.margaret),
      404,
      'NOT_FOUND',
      'Repository not found',
    );
    expectError(await t.get(`/v1/git/apps/gapp_nope/repositories/${R.acmeApi}/pull-requests`, tokens.ada), 404, 'NOT_FOUND', 'Git app not found');
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests`, tokens.hedy), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
  });
});

describe('`all` repositories of a git app', () => {
  /** The union of the per-repository lists of every repository of the git app, in the default order. */
  async function union(gitAppId: string, kind: 'commits' | 'pull-requests', who: string): Promise<Body[]> {
    const repos = await all(`/v1/git/apps/${gitAppId}/repositories`, who);
    expect(repos.length).toBeGreaterThan(1);
    const lists = await Promise.all(repos.map((r) => all(`/v1/git/apps/${gitAppId}/repositories/${r.id}/${kind}`, who)));
    return lists.flat().sort(byCreatedDesc);
  }

  test('all/commits equals the union of the per-repository commit lists, each once', async () => {
    for (const [gitAppId, who] of [[G.acmeGithub, 'linus'], [G.globexGitlab, 'outsider']] as const) {
      const expected = await union(gitAppId, 'commits', who);
      const body = await read(`/v1/git/apps/${gitAppId}/repositories/all/commits?per_page=100`, who);
      expectList(body, FIELDS.commit);
      expect(body).toEqual(list(expected, { per_page: 100 }));
      expect(new Set(ids(body)).size).toBe(body.data.length);
      expect(body.meta.total).toBe(await Commit.count({ where: { git_app_id: gitAppId } }));
      // in small pages too
      expect(await all(`/v1/git/apps/${gitAppId}/repositories/all/commits`, who, 7)).toEqual(expected);
    }
    const acme = await read(`/v1/git/apps/${G.acmeGithub}/repositories/all/commits?per_page=100`, 'ada');
    for (const id of [C.acmeApi1, C.acmeApi2, C.acmeApi3, C.acmeWeb1]) expect(acme.data).toContainEqual(commitItem(id));
    expect(ids(acme)).not.toContain(C.globexCore1);
  });

  test('all/pull-requests equals the union of the per-repository pull request lists, each once', async () => {
    for (const [gitAppId, who] of [[G.acmeGithub, 'grace'], [G.globexGitlab, 'margaret']] as const) {
      const expected = await union(gitAppId, 'pull-requests', who);
      const body = await read(`/v1/git/apps/${gitAppId}/repositories/all/pull-requests?per_page=100`, who);
      expectList(body, FIELDS.pullRequest);
      expect(body).toEqual(list(expected, { per_page: 100 }));
      expect(expected).toEqual((await dbPullRequests({ git_app_id: gitAppId })).sort(byCreatedDesc));
      expect(await all(`/v1/git/apps/${gitAppId}/repositories/all/pull-requests`, who, 5)).toEqual(expected);
    }
  });

  test('sorting, order, ties and filters work on `all` as on one repository', async () => {
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/all/commits?created_at[eq]=2024-03-20&order=asc`, 'ada')).toEqual(
      list([commitItem(C.acmeApi2), commitItem(C.acmeApi3)], { order: 'asc' }),
    );
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/all/pull-requests?created_at[eq]=2024-03-21`, 'ada')).toEqual(
      list([pullRequestItem(P.acmeApi3), pullRequestItem(P.acmeApi2)]),
    );
    const prs = await dbPullRequests({ git_app_id: G.acmeGithub });
    expect(await read(`/v1/git/apps/${G.acmeGithub}/repositories/all/pull-requests?sort=title&order=asc&per_page=100`, 'ada')).toEqual(
      list([...prs].sort(byText('title', 'asc')), { sort: 'title', order: 'asc', per_page: 100 }),
    );
    const asc = await read(`/v1/git/apps/${G.acmeGithub}/repositories/all/commits?order=asc&per_page=100`, 'ada');
    expect(asc.data).toEqual([...asc.data].sort(byCreatedAsc));
    expect(asc.meta).toMatchObject({ sort: 'created_at', order: 'asc' });
    expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/all/commits?sort=title`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at');
    expectError(
      await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/all/pull-requests?sort=number`, tokens.ada),
      400,
      'VALIDATION_ERROR',
      'sort must be one of: created_at, title',
    );
  });

  test('404 "Git app not found" and 403 for another organization\'s git app', async () => {
    for (const kind of ['commits', 'pull-requests']) {
      expectError(await t.get(`/v1/git/apps/gapp_nope/repositories/all/${kind}`, tokens.ada), 404, 'NOT_FOUND', 'Git app not found');
      expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories/all/${kind}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
      expectError(await t.get(`/v1/git/apps/${G.acmeGithub}/repositories/all/${kind}`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_GIT_APP);
    }
  });
});

describe('check order and the /trpc transport', () => {
  test('400 comes before 404 and 403', async () => {
    expectError(await t.get('/v1/git/apps/gapp_nope/repositories/repo_nope/commits?per_page=101', tokens.ada), 400, 'VALIDATION_ERROR', 'per_page must be an integer from 1 to 100');
    expectError(
      await t.get(`/v1/git/apps/${G.globexGitlab}/repositories/all/pull-requests?sort=number`, tokens.ada),
      400,
      'VALIDATION_ERROR',
      'sort must be one of: created_at, title',
    );
    expectError(await t.get(`/v1/git/apps/${G.globexGitlab}/repositories?page=0`, tokens.ada), 400, 'VALIDATION_ERROR', 'page must be an integer from 1 to 999999999999999');
  });

  test('git.allCommits and git.pullRequests answer as REST does', async () => {
    const trpc = (procedure: string, input: unknown, who: string) =>
      request(t.runtime.app)
        .get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`)
        .set('Authorization', `Bearer ${tokens[who]}`);
    const commits = await trpc('git.allCommits', { id: G.acmeGithub, per_page: 5, page: 2 }, 'linus');
    expect(commits.status).toBe(200);
    expect(commits.body.result.data).toEqual(await ok(`/v1/git/apps/${G.acmeGithub}/repositories/all/commits?per_page=5&page=2`, 'linus'));
    const prs = await trpc('git.pullRequests', { id: G.acmeGithub, repo: R.acmeApi, sort: 'title' }, 'linus');
    expect(prs.body.result.data).toEqual(await ok(`/v1/git/apps/${G.acmeGithub}/repositories/${R.acmeApi}/pull-requests?sort=title`, 'linus'));
    const missing = await trpc('git.commits', { id: G.acmeGithub, repo: R.globexCore }, 'margaret');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ message: 'Repository not found', data: { code: 'NOT_FOUND', httpStatus: 404 } });
  });
});
