import http from 'node:http';
import zlib from 'node:zlib';
import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { expectError, type Body } from '../support/assertions';
import { ROWS } from '../api/accessMatrix.table';
import { createRestClient } from '../../src/client/restClient';
import { loadConfig } from '../../src/config';

/**
 * docs/api.md#http-conventions on /v1: HEAD wherever GET works, strong ETags with 304s that cost no point, Link headers on lists,
 * compression, CORS, parameter names the query parser cannot carry, and the public document's own budget.
 */

let t: TestApp;
let token: string;
beforeAll(async () => {
  // Limits high enough for the loops below; the point accounting is read from X-RateLimit-Remaining.
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' });
  token = await t.token();
});
afterAll(async () => t.close());

const remaining = (res: request.Response) => Number(res.headers['x-ratelimit-remaining']);

/** Every path of the access matrix that ada may read: one or more per operation of the document. */
const READABLE = ROWS.filter((row) => row.cells.ada.status === 200).map((row) => row.path);

/** Headers that differ between two requests by nature. */
const PER_REQUEST = ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length', 'transfer-encoding'];
const stable = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([k]) => !PER_REQUEST.includes(k)));

describe('HEAD', () => {
  test('answers wherever GET does: the same status and headers, no body (every readable path, a 404, a 401)', async () => {
    const paths = [...READABLE, `/v1/users/${DEMO.users.ada}?fields=id`, '/v1/users/usr_nope', '/v1/no-such-route'];
    expect(READABLE.length).toBeGreaterThan(30);
    for (const path of paths) {
      // Compression is left out of HEAD (no body to measure), so both ask for the identity encoding.
      const get = await t.get(path, token).set('Accept-Encoding', 'identity');
      const head = await request(t.runtime.app).head(path).set('Authorization', `Bearer ${token}`).set('Accept-Encoding', 'identity');
      expect({ path, status: head.status, headers: stable(head.headers) }).toEqual({ path, status: get.status, headers: stable(get.headers) });
      expect(head.text ?? '').toBe('');
    }
    const anonymous = await request(t.runtime.app).head('/v1/users');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBeDefined();
  });

  test('HEAD /v1/users/usr_ada is 200 and costs one point, as a GET does', async () => {
    const before = remaining(await t.get(`/v1/users/${DEMO.users.ada}`, token));
    const head = await request(t.runtime.app).head(`/v1/users/${DEMO.users.ada}`).set('Authorization', `Bearer ${token}`);
    expect(head.status).toBe(200);
    expect(remaining(head)).toBe(before - 1);
    expect(remaining(await t.get(`/v1/users/${DEMO.users.ada}`, token))).toBe(before - 2);
  });

  test('HEAD on /trpc and on the document works like GET', async () => {
    const input = encodeURIComponent(JSON.stringify({ user_id: DEMO.users.ada }));
    const trpc = await request(t.runtime.app).head(`/trpc/users.get?input=${input}`).set('Authorization', `Bearer ${token}`);
    expect(trpc.status).toBe(200);
    expect(trpc.headers['content-type']).toMatch(/^application\/json/);
    const doc = await request(t.runtime.app).head('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.headers.etag).toBe((await request(t.runtime.app).get('/v1/openapi.json')).headers.etag);
  });
});

describe('conditional requests', () => {
  test('every 200 under /v1 carries a strong ETag of its body and Cache-Control: private, no-cache', async () => {
    for (const path of [...READABLE, '/v1/openapi.json']) {
      const res = await t.get(path, token);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect({ path, etag: res.headers.etag }).toEqual({ path, etag: expect.stringMatching(/^"[^"]+"$/) });
      expect({ path, cache: res.headers['cache-control'] }).toEqual({ path, cache: 'private, no-cache' });
    }
    const a = await t.get(`/v1/users/${DEMO.users.ada}`, token);
    const b = await t.get(`/v1/users/${DEMO.users.ada}?fields=id,name`, token);
    const c = await t.get(`/v1/users/${DEMO.users.ada}`, token);
    expect(a.headers.etag).not.toBe(b.headers.etag);
    expect(a.headers.etag).toBe(c.headers.etag);
  });

  test('If-None-Match that matches → 304: no body, the same headers, and X-RateLimit-Remaining unchanged', async () => {
    const path = `/v1/users?per_page=5&sort=name`;
    const first = await t.get(path, token);
    expect(first.status).toBe(200);
    const etag = first.headers.etag;
    const notModified = await t.get(path, token).set('If-None-Match', etag);
    expect(notModified.status).toBe(304);
    expect(notModified.text ?? '').toBe('');
    expect(remaining(notModified)).toBe(remaining(first));
    // As fetch() sends it: a conditional request with Cache-Control: no-cache still revalidates to a 304.
    expect((await t.get(path, token).set('If-None-Match', etag).set('Cache-Control', 'no-cache')).status).toBe(304);
    const { 'content-type': _type, ...expected } = stable(first.headers);
    expect(stable(notModified.headers)).toMatchObject(expected);
    expect(notModified.headers.link).toBe(first.headers.link);
    // Ten more 304s, including the weak and list forms of the header, still cost nothing.
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*', etag, etag, etag, etag, etag, etag]) {
      const res = await t.get(path, token).set('If-None-Match', header);
      expect({ header, status: res.status, remaining: remaining(res) }).toEqual({ header, status: 304, remaining: remaining(first) });
    }
    // A request that does get a body costs its point again.
    expect(remaining(await t.get(path, token))).toBe(remaining(first) - 1);
  });

  test('an ETag that does not match → 200 with the body; errors carry no ETag and are never 304', async () => {
    const changed = await t.get(`/v1/users/${DEMO.users.ada}`, token).set('If-None-Match', '"stale"');
    expect(changed.status).toBe(200);
    expect(changed.body.data.id).toBe(DEMO.users.ada);
    const missing = await t.get('/v1/users/usr_nope', token).set('If-None-Match', '*');
    expectError(missing, 404, 'NOT_FOUND');
    expect(missing.headers.etag).toBeUndefined();
  });

  test('compressed responses revalidate the same way', async () => {
    const path = '/v1/commits?per_page=100';
    const gz = await t.get(path, token).set('Accept-Encoding', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    const again = await t.get(path, token).set('Accept-Encoding', 'gzip').set('If-None-Match', gz.headers.etag);
    expect(again.status).toBe(304);
    expect(again.headers['content-encoding']).toBeUndefined();
  });

  test('the public document answers 304 too, from its own budget', async () => {
    const doc = await request(t.runtime.app).get('/v1/openapi.json');
    const again = await request(t.runtime.app).get('/v1/openapi.json').set('If-None-Match', doc.headers.etag);
    expect(again.status).toBe(304);
    expect(remaining(again)).toBe(remaining(doc));
  });

  test('the generated REST client gets a 304 for the ETag it was given', async () => {
    const api = createRestClient({ baseUrl: `${await t.listen()}/v1`, token });
    const first = await api.GET('/users/{user_id}', { params: { path: { user_id: DEMO.users.ada } } });
    expect(first.response.status).toBe(200);
    const etag = first.response.headers.get('etag')!;
    const second = await api.GET('/users/{user_id}', { params: { path: { user_id: DEMO.users.ada } }, headers: { 'If-None-Match': etag } });
    expect(second.response.status).toBe(304);
    expect(second.response.headers.get('x-ratelimit-remaining')).toBe(first.response.headers.get('x-ratelimit-remaining'));
  });
});

/** `Link` header → { rel: path-and-query }. */
function parseLinks(header: string | undefined | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/).filter(Boolean)) {
    const match = /^<([^>]+)>;\s*rel="(\w+)"$/.exec(part.trim());
    if (!match) throw new Error(`malformed link: ${part}`);
    links[match[2]] = match[1];
  }
  return links;
}

/** The page number the `next` link points at, if there is one. */
function nextPage(header: string | null): number | undefined {
  const next = parseLinks(header).next;
  return next ? Number(new URL(next, 'http://x').searchParams.get('page')) : undefined;
}

describe('Link (RFC 8288) on lists', () => {
  test('following next from page 1 visits every item once, keeping the caller’s other parameters', async () => {
    const start = '/v1/commits?per_page=7&sort=created_at&order=asc&fields=id,created_at&created_at%5Bgte%5D=2024-03-01';
    let next: string | undefined = start;
    const seen: Body[] = [];
    let pages = 0;
    let meta: Body | undefined;
    while (next) {
      const res = await t.get(next, token);
      expect(res.status).toBe(200);
      meta = res.body.meta;
      const links = parseLinks(res.headers.link);
      const query = new URL(links.first, 'http://x').searchParams;
      expect(Object.fromEntries(query)).toEqual({ per_page: '7', sort: 'created_at', order: 'asc', fields: 'id,created_at', 'created_at[gte]': '2024-03-01', page: '1' });
      expect(new URL(links.last, 'http://x').searchParams.get('page')).toBe(String(res.body.meta.total_pages));
      expect(links.prev === undefined).toBe(res.body.meta.page === 1);
      if (links.prev) expect(new URL(links.prev, 'http://x').searchParams.get('page')).toBe(String(res.body.meta.page - 1));
      seen.push(...res.body.data);
      pages += 1;
      next = links.next;
    }
    expect(pages).toBe(meta!.total_pages);
    expect(pages).toBeGreaterThan(2);
    expect(seen).toHaveLength(meta!.total);
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    expect(seen.every((c) => c.created_at >= '2024-03-01')).toBe(true);
  });

  test('the generated REST client walks every page by the Link header', async () => {
    const api = createRestClient({ baseUrl: `${await t.listen()}/v1`, token });
    const ids: string[] = [];
    let total = 0;
    for (let page: number | undefined = 1; page !== undefined; ) {
      const query = { page, per_page: 40, sort: 'email' as const, order: 'asc' as const };
      const { data, response } = await api.GET('/organizations/{organization_id}/members', {
        params: { path: { organization_id: DEMO.orgs.acme }, query },
      });
      ids.push(...data!.data.map((m) => m.id!));
      total = data!.meta.total;
      page = nextPage(response.headers.get('link'));
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
  });

  test('past the end prev points at the last page; an empty list links first and last to page 1', async () => {
    const past = await t.get('/v1/teams?per_page=2&page=999', token);
    const links = parseLinks(past.headers.link);
    const last = String(past.body.meta.total_pages);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'prev']);
    expect(new URL(links.prev, 'http://x').searchParams.get('page')).toBe(last);
    expect(new URL(links.last, 'http://x').searchParams.get('page')).toBe(last);

    const empty = await t.get('/v1/commits?created_at%5Blt%5D=2000-01-01', token);
    expect(empty.body.meta.total).toBe(0);
    expect(empty.headers.link).toBe('</v1/commits?created_at%5Blt%5D=2000-01-01&page=1>; rel="first", </v1/commits?created_at%5Blt%5D=2000-01-01&page=1>; rel="last"');
  });

  test('single records and errors carry no Link', async () => {
    expect((await t.get(`/v1/users/${DEMO.users.ada}`, token)).headers.link).toBeUndefined();
    expect((await t.get('/v1/users?per_page=0', token)).headers.link).toBeUndefined();
  });
});

describe('compression', () => {
  const decode = { gzip: zlib.gunzipSync, br: zlib.brotliDecompressSync };
  /** The bytes as they cross the wire (supertest would decode them). */
  let origin: string;
  beforeAll(async () => {
    origin = await t.listen();
  });
  const raw = (path: string, encoding: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const headers = { Authorization: `Bearer ${token}`, 'Accept-Encoding': encoding };
      http
        .get(`${origin}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  test.each(['/v1/openapi.json', '/v1/commits?per_page=100'])('%s: br and gzip when accepted, identity otherwise; the same JSON', async (path) => {
    const plain = await raw(path, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['br', 'gzip'] as const) {
      const res = await raw(path, encoding);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.body.length).toBeLessThan(plain.body.length / 2);
      expect(JSON.parse(decode[encoding](res.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
    }
    // A client that accepts both gets br.
    expect((await raw(path, 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
  });

  test('a small body is not worth compressing', async () => {
    const res = await raw(`/v1/users/${DEMO.users.ada}?fields=id`, 'gzip');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});

describe('X-Request-Id', () => {
  test('a well-formed incoming id is reused; otherwise one is made (with request logging off, as here)', async () => {
    const reused = await t.get(`/v1/users/${DEMO.users.ada}`, token).set('X-Request-Id', 'trace-42.a_b');
    expect(reused.headers['x-request-id']).toBe('trace-42.a_b');
    const made = await t.get(`/v1/users/${DEMO.users.ada}`, token).set('X-Request-Id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await request(t.runtime.app).get('/healthz')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('query parameter names the parser cannot carry', () => {
  test('?__proto__=1 is a 400 naming it, on every path', async () => {
    for (const path of [...READABLE, '/v1/users/usr_nope']) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await t.get(`${path}${sep}__proto__=1`, token);
      expectError(res, 400, 'VALIDATION_ERROR', /Unknown query parameter\(s\): '__proto__'/);
    }
    // Other names from Object.prototype are ordinary keys, refused by the schemas as any unknown name is.
    expectError(await t.get('/v1/users?constructor=1', token), 400, 'VALIDATION_ERROR', /Unknown query parameter\(s\): 'constructor'/);
  });
});

describe('CORS', () => {
  test('off by default: no CORS headers, and a preflight is not answered as one', async () => {
    const res = await t.get(`/v1/users/${DEMO.users.ada}`, token).set('Origin', 'https://app.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(t.runtime.app)
      .options('/v1/users')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  describe('with CORS_ORIGINS', () => {
    let c: TestApp;
    let cToken: string;
    const origin = 'https://app.example.com';
    beforeAll(async () => {
      c = await startTestApp({ CORS_ORIGINS: `${origin}, http://localhost:5173`, RATE_LIMIT_PER_MINUTE: '50' });
      cToken = await c.token({ user: DEMO.users.grace });
    });
    afterAll(async () => c.close());

    test('a preflight needs no token and uses no point', async () => {
      const before = remaining(await c.get(`/v1/users/${DEMO.users.grace}`, cToken));
      for (const path of ['/v1/users', '/v1/users/usr_grace', '/trpc/users.get']) {
        const preflight = await request(c.runtime.app)
          .options(path)
          .set('Origin', origin)
          .set('Access-Control-Request-Method', 'GET')
          .set('Access-Control-Request-Headers', 'authorization, if-none-match');
        expect(preflight.status).toBe(204);
        expect(preflight.headers['access-control-allow-origin']).toBe(origin);
        expect(preflight.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,If-None-Match,X-Request-Id');
        expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,POST');
        expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
        expect(preflight.headers['x-ratelimit-remaining']).toBeUndefined();
      }
      expect(remaining(await c.get(`/v1/users/${DEMO.users.grace}`, cToken))).toBe(before - 1);
    });

    test('responses expose the rate-limit headers, Link, ETag, Retry-After and X-Request-Id to the named origins only', async () => {
      const res = await c.get('/v1/users?per_page=2', cToken).set('Origin', origin);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-expose-headers']!.split(',').sort()).toEqual(
        ['ETag', 'Link', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'].sort(),
      );
      expect(res.headers.vary).toMatch(/Origin/);
      const other = await c.get('/v1/users?per_page=2', cToken).set('Origin', 'https://evil.example');
      expect(other.status).toBe(200);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    test('errors carry the CORS headers too, so a browser can read them', async () => {
      const res = await request(c.runtime.app).get('/v1/users').set('Origin', origin);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    });
  });

  test('CORS_ORIGINS takes origins or *, nothing else', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    for (const bad of ['app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'ftp://x.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS must be '\*' or comma-separated origins/);
    }
  });
});

describe('the public OpenAPI document has a budget of its own', () => {
  let d: TestApp;
  beforeAll(async () => {
    d = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '100', TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => d.close());
  const from = (ip: string) => ({ doc: () => request(d.runtime.app).get('/v1/openapi.json').set('X-Forwarded-For', ip), bad: () => request(d.runtime.app).get('/v1/users').set('X-Forwarded-For', ip).set('Authorization', 'Bearer plat_nope') });

  test('fetching it does not spend the failed-authentication budget', async () => {
    const client = from('203.0.113.10');
    for (let i = 0; i < 5; i++) await client.doc();
    expectError(await client.bad(), 401, 'UNAUTHORIZED');
  });

  test('an exhausted failed-authentication budget does not starve it', async () => {
    const client = from('203.0.113.11');
    for (let i = 0; i < 3; i++) expectError(await client.bad(), 401, 'UNAUTHORIZED');
    expectError(await client.bad(), 429, 'RATE_LIMITED');
    const doc = await client.doc();
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
  });

  test('it is still bounded, per client IP', async () => {
    const client = from('203.0.113.12');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.doc()).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await client.doc();
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await from('203.0.113.13').doc()).status).toBe(200);
  });
});
