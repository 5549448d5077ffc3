import fs from 'node:fs';
import { createRestClient, RestClient, components, operations } from '../../src/client/restClient';
import { renderRestTypes, REST_TYPES_FILE } from '../../scripts/restTypes';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * The generated REST client (openapi-typescript types + openapi-fetch), used as an external client would use
 * it against the app on a real port. The first test keeps the committed types in step with the document.
 */

type User = components['schemas']['User'];

let t: TestApp;
let baseUrl: string;
let ada: RestClient;

beforeAll(async () => {
  t = await startTestApp();
  baseUrl = `${await t.listen()}/v1`;
  ada = createRestClient({ baseUrl, token: await t.token() });
});
afterAll(async () => t?.close());

test('the committed types are what openapi-typescript generates from the current document', () => {
  const committed = fs.readFileSync(REST_TYPES_FILE, 'utf8');
  // On failure: run `npm run client:generate` and commit src/client/restSchema.d.ts.
  expect(committed === renderRestTypes()).toBe(true);
});

test('generated operations are named by what they do (checked by the compiler)', () => {
  const query: NonNullable<operations['listUsers']['parameters']['query']> = { page: 2, sort: 'email', order: 'asc' };
  const path: operations['getUser']['parameters']['path'] = { user_id: DEMO.users.ada };
  const apps: operations['listUserApps']['parameters']['path'] = path;
  expect([query.sort, apps.user_id]).toEqual(['email', DEMO.users.ada]);
});

test('walks every page of a list, in a stable order, and gets every user once', async () => {
  const perPage = 7;
  const seen: User[] = [];
  let page = 1;
  let totalPages = 1;
  let total = 0;
  do {
    const { data, error, response } = await ada.GET('/users', {
      params: { query: { page, per_page: perPage, sort: 'name', order: 'asc' } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.meta).toMatchObject({ page, per_page: perPage, sort: 'name', order: 'asc' });
    ({ total, total_pages: totalPages } = data!.meta);
    expect(data!.data.length).toBe(page < totalPages ? perPage : total - perPage * (totalPages - 1));
    seen.push(...data!.data);
    page += 1;
  } while (page <= totalPages);

  expect(totalPages).toBeGreaterThan(2);
  expect(seen).toHaveLength(total);
  expect(new Set(seen.map((u) => u.id)).size).toBe(total);
  const names = seen.map((u) => u.name!);
  expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  expect(seen.map((u) => u.id)).toEqual(expect.arrayContaining([DEMO.users.ada, DEMO.users.linus, DEMO.users.grace]));
});

test('the metrics: query parameters and figures typed from the document', async () => {
  const { data, error } = await ada.GET('/metrics/pull-requests', { params: { query: { organization_id: DEMO.orgs.acme, from: '2024-01-01', to: '2024-12-31', interval: 'week' } } });
  expect(error).toBeUndefined();
  const median: number | null = data!.data.time_to_merge_hours.median;
  expect(median === null || typeof median === 'number').toBe(true);
  expect(data!.data.series!.reduce((sum, b) => sum + b.opened, 0)).toBe(data!.data.opened);
  const bad = await ada.GET('/metrics/pull-requests', { params: { query: { organization_id: DEMO.orgs.acme, team_id: DEMO.teams.platform } } });
  expect(bad.error).toEqual({ status: 'error', error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('Give exactly one of organization_id and team_id') } });
});

test('path parameters, fields and created_at filters are sent as the document describes them', async () => {
  const { data } = await ada.GET('/git/apps/{id}/repositories/{repo}/commits', {
    params: {
      path: { id: DEMO.gitApps.acmeGithub, repo: DEMO.repos.acmeApi },
      query: { 'created_at[eq]': '2024-03-20', sort: 'created_at', order: 'asc', fields: 'id,sha,author_name' },
    },
  });
  // A tie on created_at is broken by id in the same direction.
  expect(data!.data).toEqual([
    { id: DEMO.commits.acmeApi2, sha: 'a1d4c0de0000000000000000000000000000a002', author_name: 'Linus Torvalds' },
    { id: DEMO.commits.acmeApi3, sha: 'a1d4c0de0000000000000000000000000000a003', author_name: 'dependabot[bot]' },
  ]);

  const range = await ada.GET('/commits', {
    params: { query: { 'created_at[gte]': '2024-01-15', 'created_at[lt]': '2024-01-17T00:00:00Z', order: 'asc' } },
  });
  expect(range.data!.data.map((c) => c.id)).toEqual([DEMO.commits.acmeApi1, DEMO.commits.acmeWeb1]);
  expect(range.data!.meta).toMatchObject({ total: 2, total_pages: 1, sort: 'created_at', order: 'asc' });

  const one = await ada.GET('/users/{user_id}', { params: { path: { user_id: DEMO.users.linus } } });
  expect(one.data).toEqual({
    status: 'success',
    data: { id: DEMO.users.linus, name: 'Linus Torvalds', email: DEMO.emails.linus, created_at: '2024-03-15T12:00:00.000Z' },
  });
});

test('errors come back typed as the error envelope, with their status', async () => {
  const missing = await ada.GET('/teams/{team_id}', { params: { path: { team_id: 'team_nope' } } });
  expect(missing.data).toBeUndefined();
  expect(missing.response.status).toBe(404);
  expect(missing.error).toEqual({ status: 'error', error: { code: 'NOT_FOUND', message: 'Team not found' } });

  const outsider = createRestClient({ baseUrl, token: await t.token({ user: DEMO.emails.outsider }) });
  const forbidden = await outsider.GET('/organizations/{organization_id}', { params: { path: { organization_id: DEMO.orgs.acme } } });
  expect(forbidden.response.status).toBe(403);
  expect(forbidden.error?.error.code).toBe('FORBIDDEN');

  const tooMany = await ada.GET('/users', { params: { query: { per_page: 101 } } });
  expect(tooMany.response.status).toBe(400);
  expect(tooMany.error?.error).toEqual({ code: 'VALIDATION_ERROR', message: 'per_page must be an integer from 1 to 100' });

  const anonymous = createRestClient({ baseUrl, token: 'plat_not-a-token' });
  const unauthorized = await anonymous.GET('/users', {});
  expect(unauthorized.response.status).toBe(401);
  expect(unauthorized.error?.error.code).toBe('UNAUTHORIZED');
});

test('every response carries the rate-limit headers the document declares', async () => {
  const { response } = await ada.GET('/organizations', {});
  for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
    expect({ header, value: response.headers.get(header) }).toEqual({ header, value: expect.stringMatching(/^\d+$/) });
  }
});
