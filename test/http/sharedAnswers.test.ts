import http from 'node:http';
import { MetricsService } from '../../src/services/metrics';
import { Authenticator } from '../../src/auth/authenticator';
import { ListingService } from '../../src/persistence/query/listing';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * Identical concurrent requests answered once (src/http/sharedAnswers.ts): requests for the same figures, from
 * callers of the same access, that arrive while the first is computed get its very bytes; callers whose access
 * differs never share, and each request keeps its own request id and rate-limit point.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

// With a daily series: an answer of several KB, which is compressed.
const COLLABORATION = `/v1/metrics/collaboration?organization_id=${DEMO.orgs.acme}&interval=day`;

/**
 * Holds every computation of the figures until `release`, so that requests sent together are all in flight at
 * once; counts the procedures that asked for figures (a request that shares an answer asks for none).
 */
function holdFigures() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const compute = MetricsService.prototype.compute;
  const spy = jest.spyOn(MetricsService.prototype, 'compute').mockImplementation(async function (this: MetricsService, ...args) {
    await released;
    return compute.apply(this, args);
  });
  return { spy, release, restore: () => spy.mockRestore() };
}

/** Waits until the requests are in flight: the leaders asked for figures, the others reached the server. */
async function inFlight(spy: jest.SpyInstance, leaders: number) {
  for (let i = 0; i < 200 && spy.mock.calls.length < leaders; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
}

test('eight identical requests from one caller: the figures asked for once, the same bytes for each, each its own request id and point', async () => {
  const token = await t.token();
  const held = holdFigures();
  try {
    const sent = Array.from({ length: 8 }, () => t.get(COLLABORATION, token).set('Accept-Encoding', 'gzip').then((res) => res));
    await inFlight(held.spy, 1);
    held.release();
    const answers = await Promise.all(sent);
    expect(held.spy).toHaveBeenCalledTimes(1);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    for (const a of answers) {
      expect(a.body).toEqual(answers[0].body);
      expect(a.headers.etag).toBe(answers[0].headers.etag);
      expect(a.headers['content-encoding']).toBe('gzip');
      expect(a.headers['content-type']).toBe(answers[0].headers['content-type']);
      expect(a.headers['cache-control']).toBe('private, no-cache');
    }
    expect(answers[0].body.data.review_load).toEqual(expect.any(Array));
    expect(new Set(answers.map((a) => a.headers['x-request-id'])).size).toBe(8);
    expect(new Set(answers.map((a) => a.headers['x-ratelimit-remaining'])).size).toBe(8);
  } finally {
    held.restore();
  }
});

test('two callers whose access differs never share: the admin gets the per-person lists, the collaborator null', async () => {
  const [ada, linus] = [await t.token(), await t.token({ user: DEMO.emails.linus })];
  const held = holdFigures();
  try {
    const sent = [ada, linus, ada, linus].map((token) => t.get(COLLABORATION, token).then((res) => res));
    await inFlight(held.spy, 2);
    held.release();
    const [adaFirst, linusFirst, adaSecond, linusSecond] = await Promise.all(sent);
    // One computation for each access; each caller's second request joined its own first.
    expect(held.spy).toHaveBeenCalledTimes(2);
    expect(adaFirst.body.data.review_load).toEqual(expect.any(Array));
    expect(adaSecond.body).toEqual(adaFirst.body);
    expect(linusFirst.body.data).toEqual({ ...adaFirst.body.data, review_load: null, review_network: null, knowledge_silos: null });
    expect(linusSecond.body).toEqual(linusFirst.body);
  } finally {
    held.restore();
  }
});

test('what is not shared: an answer in another encoding, a conditional request', async () => {
  const token = await t.token();
  const etag = (await t.get(COLLABORATION.replace('collaboration', 'activity'), token)).headers.etag;
  const held = holdFigures();
  try {
    const sent = [
      t.get(COLLABORATION, token).set('Accept-Encoding', 'gzip'),
      t.get(COLLABORATION, token).set('Accept-Encoding', 'identity'),
      t.get(COLLABORATION, token).set('Accept-Encoding', 'gzip').set('If-None-Match', '"nothing"'),
    ].map((r) => r.then((res) => res));
    await inFlight(held.spy, 3);
    held.release();
    const answers = await Promise.all(sent);
    expect(held.spy).toHaveBeenCalledTimes(3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[1].headers['content-encoding']).toBeUndefined();
    expect(answers[1].body).toEqual(answers[0].body);
    // A conditional request still gets its 304.
    expect((await t.get(COLLABORATION.replace('collaboration', 'activity'), token).set('If-None-Match', etag)).status).toBe(304);
  } finally {
    held.restore();
  }
});

test('a request that fails is shared with nobody: those waiting run on their own and get their own answer', async () => {
  const token = await t.token();
  const compute = MetricsService.prototype.compute;
  let calls = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const spy = jest.spyOn(MetricsService.prototype, 'compute').mockImplementation(async function (this: MetricsService, ...args) {
    calls += 1;
    await released;
    if (calls === 1) throw new Error('the first computation fails');
    return compute.apply(this, args);
  });
  try {
    const sent = [0, 1, 2].map(() => t.get(COLLABORATION, token).then((res) => res));
    await inFlight(spy, 1);
    release();
    const statuses = (await Promise.all(sent)).map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 500]);
  } finally {
    spy.mockRestore();
  }
});

test('a client that leaves while its token is checked leads nothing: the next identical request is answered', async () => {
  const token = await t.token();
  const origin = await t.listen();
  const headers = { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' };
  // The token check waits until the client is gone, so the request reaches the sharing with its response closed.
  let left: () => void = () => undefined;
  const gone = new Promise<void>((resolve) => (left = resolve));
  let checked: () => void = () => undefined;
  const past = new Promise<void>((resolve) => (checked = resolve));
  const authenticate = Authenticator.prototype.authenticate;
  const spy = jest.spyOn(Authenticator.prototype, 'authenticate').mockImplementationOnce(async function (this: Authenticator, ...args) {
    await gone;
    // The server learns of the closed socket in a later turn of its loop.
    await new Promise((r) => setTimeout(r, 100));
    const principal = await authenticate.apply(this, args);
    checked();
    return principal;
  });
  try {
    const leaving = http.get(`${origin}${COLLABORATION}`, { headers });
    leaving.on('error', () => undefined);
    leaving.on('socket', (socket) => socket.on('connect', () => setTimeout(() => leaving.destroy(), 50)));
    leaving.on('close', () => left());
    // The gone client's request goes on from its token check to the sharing before the next one is sent.
    await past;
    await new Promise((r) => setTimeout(r, 200));
    // Before the fix, this one waited for the gone client's answer for ever.
    const next = await Promise.race([
      t.get(COLLABORATION, token).set('Accept-Encoding', 'gzip').then((res) => res.status),
      new Promise((resolve) => setTimeout(() => resolve('no answer in 10 s'), 10_000)),
    ]);
    expect(next).toBe(200);
    expect(spy).toHaveBeenCalledTimes(2);
  } finally {
    spy.mockRestore();
  }
});

test('lists are never shared: four identical page requests in flight at once each read their page', async () => {
  const token = await t.token();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const fetchPage = ListingService.prototype.fetchPage;
  const spy = jest.spyOn(ListingService.prototype, 'fetchPage').mockImplementation(async function (this: ListingService, ...args) {
    await released;
    return fetchPage.apply(this, args) as never;
  });
  try {
    const sent = [0, 1, 2, 3].map(() => t.get('/v1/teams?sort=name&per_page=2', token).then((res) => res));
    await inFlight(spy, 4);
    release();
    const answers = await Promise.all(sent);
    expect(spy).toHaveBeenCalledTimes(4);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
  } finally {
    spy.mockRestore();
  }
});
