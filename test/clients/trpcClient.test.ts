import { TRPCClientError } from '@trpc/client';
import { createPlatformClient, PlatformClient } from '../../src/client/trpcClient';
import type { AppRouter } from '../../src';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * The typed tRPC client of src/client/trpcClient.ts against the app on a real port: the same data as REST,
 * the REST error codes in `data.code`, the rate-limit headers on /trpc responses, and batching (one HTTP
 * request, one point against the limit, for several calls made in the same tick).
 */

let t: TestApp;
let url: string;
let ada: PlatformClient;

beforeAll(async () => {
  t = await startTestApp();
  url = `${await t.listen()}/trpc`;
  ada = createPlatformClient({ url, token: await t.token() });
});

afterAll(async () => t?.close());

/** A fetch that records every response (URL and headers) before handing it to the client. */
function recordingFetch() {
  const responses: { url: string; status: number; headers: Headers }[] = [];
  const fetchImpl = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const res = await fetch(input, init);
    responses.push({ url: String(input), status: res.status, headers: res.headers });
    return res;
  };
  return { responses, fetch: fetchImpl };
}

function rateLimitHeaders(headers: Headers) {
  return {
    limit: Number(headers.get('x-ratelimit-limit')),
    remaining: Number(headers.get('x-ratelimit-remaining')),
    reset: Number(headers.get('x-ratelimit-reset')),
  };
}

/** The REST body of the same request, for comparison. */
async function rest(path: string) {
  const res = await t.get(path, await t.token());
  expect(res.status).toBe(200);
  return res.body;
}

describe('createPlatformClient', () => {
  test('users.list with paging input returns the list envelope, the same as REST', async () => {
    const page = await ada.users.list.query({ page: 2, per_page: 3, sort: 'name', order: 'asc' });
    expect(page.status).toBe('success');
    expect(page.data).toHaveLength(3);
    expect(page.meta).toMatchObject({ page: 2, per_page: 3, sort: 'name', order: 'asc' });
    expect(page.meta.total_pages).toBe(Math.ceil(page.meta.total / 3));
    expect(page).toEqual(await rest('/v1/users?page=2&per_page=3&sort=name&order=asc'));
  });

  test('users.get returns one user (fields included)', async () => {
    const user = await ada.users.get.query({ user_id: DEMO.users.linus });
    expect(user).toEqual({
      status: 'success',
      data: { id: DEMO.users.linus, name: 'Linus Torvalds', email: DEMO.emails.linus, created_at: '2024-03-15T12:00:00.000Z' },
    });
    const picked = await ada.users.get.query({ user_id: DEMO.users.linus, fields: 'id,name' });
    expect(picked.data).toEqual({ id: DEMO.users.linus, name: 'Linus Torvalds' });
  });

  test('organizations.members lists the members with their roles', async () => {
    const members = await ada.organizations.members.query({ organization_id: DEMO.orgs.acme, per_page: 100, sort: 'created_at', order: 'asc' });
    const roles = Object.fromEntries(members.data.map((m) => [m.id, m.role]));
    expect(roles).toMatchObject({
      [DEMO.users.ada]: 'admin',
      [DEMO.users.grace]: 'manager',
      [DEMO.users.linus]: 'collaborator',
    });
    expect(members).toEqual(await rest(`/v1/organizations/${DEMO.orgs.acme}/members?per_page=100&sort=created_at&order=asc`));
  });

  test('teams.get returns the team', async () => {
    const team = await ada.teams.get.query({ team_id: DEMO.teams.platform });
    expect(team.data).toEqual({
      id: DEMO.teams.platform,
      organization_id: DEMO.orgs.acme,
      name: 'Platform',
      created_at: '2024-01-05T09:00:00.000Z',
    });
  });

  test('metrics.dora returns the same figures as REST, typed', async () => {
    const query = { organization_id: DEMO.orgs.acme, from: '2024-01-01', to: '2024-12-31', interval: 'month' as const };
    const dora = await ada.metrics.dora.query(query);
    const band: 'elite' | 'high' | 'medium' | 'low' | null = dora.data.deployment_frequency.band;
    expect(band).toEqual(expect.any(String));
    expect(dora.data.series).toHaveLength(12);
    const rest = await t.get(`/v1/metrics/dora?${new URLSearchParams(query)}`, await t.token());
    expect(dora).toEqual(rest.body);
  });

  test('commits with a created_at filter returns only that day\'s commits', async () => {
    const commits = await ada.commits.query({ 'created_at[eq]': '2024-03-20' });
    expect(commits.data.map((c) => c.id).sort()).toEqual([DEMO.commits.acmeApi2, DEMO.commits.acmeApi3]);
    const range = await ada.commits.query({ 'created_at[gte]': '2024-01-15', 'created_at[lt]': '2024-01-16' });
    expect(range.data.map((c) => c.id)).toEqual([DEMO.commits.acmeApi1]);
    expect(commits).toEqual(await rest('/v1/commits?created_at[eq]=2024-03-20'));
  });

  test('an unknown user is a TRPCClientError with the REST code NOT_FOUND and status 404', async () => {
    const error = await ada.users.get.query({ user_id: 'usr_nobody' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    const clientError = error as TRPCClientError<AppRouter>;
    expect(clientError.message).toBe('User not found');
    expect(clientError.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
    expect(clientError.shape?.code).toBeDefined();

    const viaRest = await t.get('/v1/users/usr_nobody', await t.token());
    expect({ status: viaRest.status, code: viaRest.body.error.code }).toEqual({ status: 404, code: clientError.data?.code });
  });

  test('a bad input is VALIDATION_ERROR / 400, with the REST message', async () => {
    const error = (await ada.users.list.query({ per_page: 101 }).catch((err: unknown) => err)) as TRPCClientError<AppRouter>;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.data).toMatchObject({ code: 'VALIDATION_ERROR', httpStatus: 400 });
    expect(error.message).toBe('per_page must be an integer from 1 to 100');
  });

  test('a bad token is UNAUTHORIZED / 401', async () => {
    const stranger = createPlatformClient({ url, token: 'plat_not-a-token' });
    const error = (await stranger.users.get.query({ user_id: DEMO.users.ada }).catch((err: unknown) => err)) as TRPCClientError<AppRouter>;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
  });
});

describe('rate limits through the client', () => {
  // hedy's budget is used by nothing else in this file, so the counts below are exact.
  let hedyToken: string;
  beforeAll(async () => {
    hedyToken = await t.token({ user: DEMO.emails.hedy });
  });

  test('/trpc responses carry X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const recorder = recordingFetch();
    const hedy = createPlatformClient({ url, token: hedyToken, fetch: recorder.fetch });
    const before = Math.floor(Date.now() / 1000);
    const user = await hedy.users.get.query({ user_id: DEMO.users.hedy });
    const after = Math.ceil(Date.now() / 1000);
    expect(user.data.id).toBe(DEMO.users.hedy);

    expect(recorder.responses).toHaveLength(1);
    const [response] = recorder.responses;
    expect(response.url).toContain('/trpc/users.get');
    expect(response.status).toBe(200);
    const h = rateLimitHeaders(response.headers);
    // The minute tier (100 by default) has the fewest requests left.
    expect(h).toEqual({ limit: t.config.RATE_LIMIT_PER_MINUTE, remaining: t.config.RATE_LIMIT_PER_MINUTE - 1, reset: expect.any(Number) });
    expect(h.reset).toBeGreaterThanOrEqual(before);
    // The window opened during the call, so it ends at most a minute after the answer came back.
    expect(h.reset).toBeLessThanOrEqual(after + 60);
  });

  test('two calls in the same tick are one batched HTTP request and two points against the limit', async () => {
    const recorder = recordingFetch();
    const hedy = createPlatformClient({ url, token: hedyToken, fetch: recorder.fetch });

    await hedy.users.get.query({ user_id: DEMO.users.hedy });
    expect(recorder.responses).toHaveLength(1);
    const start = rateLimitHeaders(recorder.responses[0].headers).remaining;

    const [team, members] = await Promise.all([
      hedy.teams.get.query({ team_id: DEMO.teams.globexCore }),
      hedy.organizations.members.query({ organization_id: DEMO.orgs.globex, per_page: 5 }),
    ]);
    expect(team.data.id).toBe(DEMO.teams.globexCore);
    expect(members.data.length).toBeGreaterThan(0);

    expect(recorder.responses).toHaveLength(2);
    const batch = recorder.responses[1];
    expect(batch.url).toContain('/trpc/teams.get,organizations.members?batch=1');
    expect(rateLimitHeaders(batch.headers).remaining).toBe(start - 2);
  });
});
