import request from 'supertest';
import { createPlatformClient } from '../../src/client/trpcClient';
import { MAX_TRPC_BATCH } from '../../src/wire/limits';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * docs/api.md#http-conventions: no request shape buys more work than its points. Each call in a /trpc batch counts as one
 * request; a batch over MAX_TRPC_BATCH calls is refused whole (400 VALIDATION_ERROR for each call, one point).
 */

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '200', RATE_LIMIT_PER_HOUR: '1000' });
  token = await t.token({ user: DEMO.users.grace });
});
afterAll(async () => t.close());

const remaining = (res: request.Response) => Number(res.headers['x-ratelimit-remaining']);

/** `GET /trpc/p,p,…?batch=1` with `n` calls of one procedure and input. */
function batch(n: number, procedure: string, input: unknown, bearer = token) {
  const inputs = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), input]));
  const paths = Array.from({ length: n }, () => procedure).join(',');
  return request(t.runtime.app)
    .get(`/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(inputs))}`)
    .set('Authorization', `Bearer ${bearer}`);
}

test(`a batch of ${MAX_TRPC_BATCH} calls costs ${MAX_TRPC_BATCH} points; a single call one`, async () => {
  const single = await request(t.runtime.app)
    .get(`/trpc/users.get?input=${encodeURIComponent(JSON.stringify({ user_id: DEMO.users.grace }))}`)
    .set('Authorization', `Bearer ${token}`);
  expect(single.status).toBe(200);
  const full = await batch(MAX_TRPC_BATCH, 'users.get', { user_id: DEMO.users.grace });
  expect(full.status).toBe(200);
  expect(full.body).toHaveLength(MAX_TRPC_BATCH);
  expect(remaining(full)).toBe(remaining(single) - MAX_TRPC_BATCH);
});

test('150 commits calls at per_page=100 in one request: refused, no rows, one point', async () => {
  const before = remaining(await batch(1, 'users.get', { user_id: DEMO.users.grace }));
  const res = await batch(150, 'commits', { per_page: 100 });
  expect(res.status).toBe(400);
  expect(res.body).toHaveLength(150);
  for (const call of res.body) {
    expect(call.error.data.code).toBe('VALIDATION_ERROR');
    expect(call.error.message).toBe(`A /trpc batch may hold at most ${MAX_TRPC_BATCH} calls; this one has 150. Split it into smaller batches`);
    expect(call.result).toBeUndefined();
  }
  expect(remaining(res)).toBe(before - 1);
});

test(`the typed client splits its batches at ${MAX_TRPC_BATCH} calls and pays one point per call`, async () => {
  const urls: string[] = [];
  let last: Headers | undefined;
  const client = createPlatformClient({
    url: `${await t.listen()}/trpc`,
    token,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      urls.push(String(input));
      last = res.headers;
      return res;
    },
  });
  await client.users.get.query({ user_id: DEMO.users.grace });
  const before = Number(last!.get('x-ratelimit-remaining'));
  const calls = 45;
  const results = await Promise.all(Array.from({ length: calls }, () => client.users.get.query({ user_id: DEMO.users.grace })));
  expect(results.every((r) => r.data.id === DEMO.users.grace)).toBe(true);
  const batches = urls.slice(1).map((u) => new URL(u).pathname.split('/').pop()!.split(',').length);
  expect(batches.sort((a, b) => b - a)).toEqual([20, 20, 5]);
  const after = Number(
    (await request(t.runtime.app).get(`/trpc/users.get?input=${encodeURIComponent(JSON.stringify({ user_id: DEMO.users.grace }))}`).set('Authorization', `Bearer ${token}`)).headers['x-ratelimit-remaining'],
  );
  expect(after).toBe(before - calls - 1);
});

test('a repeated batch flag or percent-encoded commas cannot hide calls from the count', async () => {
  const inputs = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [String(i), { per_page: 100 }]));
  const query = `input=${encodeURIComponent(JSON.stringify(inputs))}`;
  const plainPaths = Array(30).fill('commits').join(',');
  for (const url of [`/trpc/${plainPaths}?batch=1&batch=1&${query}`, `/trpc/${Array(30).fill('commits').join('%2C')}?batch=1&${query}`]) {
    const res = await request(t.runtime.app).get(url).set('Authorization', `Bearer ${token}`);
    expect({ url: url.slice(0, 40), status: res.status }).toEqual({ url: url.slice(0, 40), status: 400 });
    expect(JSON.stringify(res.body)).toContain(`at most ${MAX_TRPC_BATCH} calls; this one has 30`);
  }
  // Calls the gate counted are the calls tRPC runs: 7 encoded calls cost 7 points.
  const before = remaining(await batch(1, 'users.get', { user_id: DEMO.users.grace }));
  const seven = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [String(i), { user_id: DEMO.users.grace }]));
  const res = await request(t.runtime.app)
    .get(`/trpc/${Array(7).fill('users.get').join('%2C')}?batch=1&input=${encodeURIComponent(JSON.stringify(seven))}`)
    .set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(7);
  expect(remaining(res)).toBe(before - 7);
});

// Last: a second app rebinds the models to its own database (see test/support/harness.ts).
test('a batch larger than the points left is 429 for every call; the check order stays 401 → 429 → 400', async () => {
  const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_HOUR: '100' });
  try {
    const bearer = await limited.token();
    const send = (n: number, auth = bearer) => {
      const inputs = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { user_id: DEMO.users.ada }]));
      return request(limited.runtime.app)
        .get(`/trpc/${Array(n).fill('users.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(inputs))}`)
        .set('Authorization', `Bearer ${auth}`);
    };
    expect((await send(MAX_TRPC_BATCH + 1, 'plat_nope')).body[0].error.data.code).toBe('UNAUTHORIZED');
    const six = await send(6);
    expect(six.status).toBe(429);
    expect(six.body.map((c: { error: { data: { code: string } } }) => c.error.data.code)).toEqual(Array(6).fill('RATE_LIMITED'));
    expect(Number(six.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  } finally {
    await limited.close();
  }
});
