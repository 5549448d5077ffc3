import zlib from 'node:zlib';
import { loadConfig } from '../../src/config';
import { AnswerTooLarge, answerExcerpt, checkDestination, OutboundPolicy, outboundFetch, outboundPolicy, RefusedDestination } from '../../src/outbound/outboundFetch';
import { HostilePeer, Misbehaviour, SeenRequest } from '../support/peers/hostilePeer';

/**
 * The one way the service calls another's server (docs/operating.md#outgoing-calls), against local peers that
 * misbehave on purpose: redirects to another host never carry the request's headers there, plain http and private
 * addresses are refused unless the operator allows them, and an answer of 2 GB is cut off at its cap without being
 * held. The policies are the configuration's own defaults (16 MB for JSON, 64 MB for a report).
 */
const allowed: OutboundPolicy = outboundPolicy(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' }));
const strict: OutboundPolicy = outboundPolicy(loadConfig({}));
const TWO_GB = 2 * 1024 ** 3;
const MB = 1024 * 1024;

let behaviour: (request: SeenRequest) => Misbehaviour;
let elsewhereBehaviour: (request: SeenRequest) => Misbehaviour;
const peer = new HostilePeer((r) => behaviour(r));
/** Another origin: the same machine on another port. */
const elsewhere = new HostilePeer((r) => elsewhereBehaviour(r));
beforeAll(async () => {
  await Promise.all([peer.start(), elsewhere.start()]);
});
afterAll(async () => {
  await Promise.all([peer.stop(), elsewhere.stop()]);
});
beforeEach(() => {
  peer.requests.length = 0;
  elsewhere.requests.length = 0;
  elsewhereBehaviour = () => ({ status: 200, body: '{"stolen":true}' });
});

const KEY = { 'x-api-key': 'sk-ant-admin01-secret', authorization: 'Bearer ghp_secret' };

describe('an answer is streamed and cut off at its cap, never held', () => {
  test('2 GB of JSON, chunked and made lazily by the peer: cut off at 16 MB with a message naming the setting', async () => {
    behaviour = () => ({ stream: { bytes: TWO_GB, prefix: '{"data":[', chunk: `${JSON.stringify({ email: 'ada@example.com', n: 1 })},`.repeat(1000) } });
    const answer = await outboundFetch(allowed, `${peer.base}/anthropic/v1/organizations/usage_report/claude_code`);
    expect(answer.status).toBe(200);
    const read = answer.text();
    await expect(read).rejects.toThrow(AnswerTooLarge);
    await expect(read).rejects.toThrow(`${peer.base}/anthropic/v1/organizations/usage_report/claude_code sent more than 16 MB: the answer was cut off there and is not used (OUTBOUND_ANSWER_MAX_MB sets the limit)`);
    // The peer could write what the sockets' buffers hold past the cap, and nothing near 2 GB.
    const [sent] = await peer.sent().then((all) => all.slice(-1));
    expect(sent).toBeGreaterThan(16 * MB);
    expect(sent).toBeLessThan(64 * MB);
  });

  test("a report's 2 GB of NDJSON: cut off at the report cap, 64 MB", async () => {
    behaviour = () => ({ stream: { bytes: TWO_GB, chunk: `${JSON.stringify({ user_login: 'ada', day: '2026-10-01' })}\n`.repeat(1000), headers: { 'content-type': 'application/x-ndjson' } } });
    const answer = await outboundFetch(allowed, `${peer.base}/files/2026-10-01-1.ndjson`, { answer: 'report', redirects: 'anywhere' });
    let bytes = 0;
    const read = (async () => {
      for await (const chunk of answer.body!) bytes += chunk.length;
    })();
    await expect(read).rejects.toThrow(/sent more than 64 MB: the answer was cut off there and is not used \(OUTBOUND_REPORT_MAX_MB sets the limit\)$/);
    expect(bytes).toBeLessThanOrEqual(64 * MB);
    expect(bytes).toBeGreaterThan(63 * MB);
  });

  test('a declared Content-Length of 2 GB is refused before its body is read', async () => {
    behaviour = () => ({ stream: { bytes: TWO_GB, chunk: 'x'.repeat(65536), declareLength: true } });
    const answer = await outboundFetch(allowed, `${peer.base}/big`);
    expect(answer.headers.get('content-length')).toBe(String(TWO_GB));
    await expect(answer.arrayBuffer()).rejects.toThrow(/sent more than 16 MB/);
    const [sent] = await peer.sent().then((all) => all.slice(-1));
    // Only what the peer wrote before it saw the connection close: the client read none of it.
    expect(sent).toBeLessThan(16 * MB);
  });

  test('a compressed answer is capped by what it decompresses to (40 MB of zeros in 40 KB of gzip)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(40 * MB));
    expect(bomb.length).toBeLessThan(MB);
    behaviour = () => ({ status: 200, body: bomb, headers: { 'content-encoding': 'gzip', 'content-length': String(bomb.length) } });
    const answer = await outboundFetch(allowed, `${peer.base}/gzip`);
    await expect(answer.arrayBuffer()).rejects.toThrow(/sent more than 16 MB/);
    // The request asked for compression; an answer within the cap decompresses as fetch's would.
    expect(peer.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br');
    behaviour = () => ({ status: 200, body: zlib.gzipSync('{"ok":true}'), headers: { 'content-encoding': 'gzip' } });
    expect(await (await outboundFetch(allowed, `${peer.base}/gzip`)).json()).toEqual({ ok: true });
  });

  test('an excerpt reads only its first bytes of an endless answer', async () => {
    behaviour = () => ({ stream: { bytes: TWO_GB, chunk: 'y'.repeat(4096) } });
    const answer = await outboundFetch(allowed, `${peer.base}/endless`);
    expect(await answerExcerpt(answer, 1024)).toBe('y'.repeat(1024));
  });
});

describe('redirects: never a credential to another origin', () => {
  test('to another origin: refused, and the other host receives nothing (neither the key nor the request)', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      behaviour = () => ({ redirect: `${elsewhere.base}/collect?from=vendor`, status });
      const call = outboundFetch(allowed, `${peer.base}/anthropic/v1/organizations/usage_report/claude_code`, { headers: KEY });
      await expect(call).rejects.toThrow(RefusedDestination);
      await expect(outboundFetch(allowed, `${peer.base}/api/x`, { headers: KEY })).rejects.toThrow(
        `${peer.base} redirected to ${elsewhere.base}/collect, another origin: not followed, so the request's credential is not sent there (give the final address instead)`,
      );
    }
    expect(elsewhere.requests).toEqual([]);
    // Another scheme or port of the same host is another origin too.
    behaviour = () => ({ redirect: peer.base.replace('http:', 'https:') + '/api/x' });
    await expect(outboundFetch(allowed, `${peer.base}/api/x`, { headers: KEY })).rejects.toThrow(/another origin/);
  });

  test('within the origin: followed with the same headers; a 303 (or a 302 after a POST) as a GET without the body', async () => {
    behaviour = (r) => (r.path === '/old' ? { redirect: `${peer.base}/new`, status: 308 } : { status: 200, body: JSON.stringify({ method: r.method, key: r.headers['x-api-key'] }) });
    expect(await (await outboundFetch(allowed, `${peer.base}/old`, { headers: KEY })).json()).toEqual({ method: 'GET', key: KEY['x-api-key'] });
    behaviour = (r) => (r.path === '/old' ? { redirect: '/new', status: 303 } : { status: 200, body: JSON.stringify({ method: r.method, type: r.headers['content-type'] ?? null }) });
    expect(await (await outboundFetch(allowed, `${peer.base}/old`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })).json()).toEqual({ method: 'GET', type: null });
  });

  test('more than five redirects are refused', async () => {
    behaviour = (r) => ({ redirect: `${peer.base}/loop/${peer.requests.length}` });
    await expect(outboundFetch(allowed, `${peer.base}/loop/0`)).rejects.toThrow(`${peer.base} redirected more than 5 times`);
    expect(peer.requests).toHaveLength(6);
  });

  test("a request without a credential (a signed report link) follows one elsewhere, each hop checked as the first", async () => {
    behaviour = () => ({ redirect: `${elsewhere.base}/blob/1.ndjson?sig=abc` });
    elsewhereBehaviour = () => ({ status: 200, body: '{"user_login":"ada"}\n' });
    const answer = await outboundFetch(allowed, `${peer.base}/files/1.ndjson`, { headers: { 'user-agent': 'platform-api' }, redirects: 'anywhere', answer: 'report' });
    expect(await answer.text()).toBe('{"user_login":"ada"}\n');
    expect(answer.url).toBe(`${elsewhere.base}/blob/1.ndjson?sig=abc`);
    expect(elsewhere.requests.map((r) => r.headers.authorization)).toEqual([undefined]);
    // A hop to plain http across the internet is refused as a first request would be: no connection is made.
    behaviour = () => ({ redirect: 'http://8.8.8.8/blob/1.ndjson' });
    await expect(outboundFetch(allowed, `${peer.base}/files/1.ndjson`, { redirects: 'anywhere' })).rejects.toThrow('8.8.8.8 is a public address, called only over https://');
  });

  test('manual: the 3xx is the answer (the webhooks and openid-client decide)', async () => {
    behaviour = () => ({ redirect: `${elsewhere.base}/x` });
    const answer = await outboundFetch(allowed, `${peer.base}/x`, { redirects: 'manual', headers: KEY });
    expect([answer.status, answer.headers.get('location')]).toEqual([302, `${elsewhere.base}/x`]);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('where a call may go', () => {
  beforeEach(() => {
    behaviour = () => ({ status: 200, body: '{}' });
  });

  test('plain http is refused unless the operator allows it, and then only to loopback or private addresses', async () => {
    await expect(outboundFetch(strict, `${peer.base}/api/x`, { headers: KEY })).rejects.toThrow(
      `${peer.base} is plain http; outgoing calls use https:// (http:// only to a loopback or private address, when WEBHOOK_ALLOW_PRIVATE=1)`,
    );
    expect(peer.requests).toEqual([]);
    expect((await outboundFetch(allowed, `${peer.base}/api/x`)).status).toBe(200);
    for (const url of ['http://8.8.8.8/', 'http://[2606:4700::1111]/']) {
      await expect(outboundFetch(allowed, url, { headers: KEY })).rejects.toThrow(/is a public address, called only over https:\/\/$/);
    }
    // The webhooks alone send to http:// wherever the guard lets them (the receiver chose it; the body is signed).
    expect((await outboundFetch(allowed, `${peer.base}/hook`, { method: 'POST', body: '{}', plainHttpAnywhere: true })).status).toBe(200);
    await expect(outboundFetch(strict, `${peer.base}/hook`, { method: 'POST', body: '{}', plainHttpAnywhere: true })).rejects.toThrow('127.0.0.1 is a loopback address; outgoing calls go only to public addresses');
  });

  test.each([
    ['https://127.0.0.1:1/', '127.0.0.1 is a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a linkLocal address'],
    ['https://10.1.2.3/api/v3', '10.1.2.3 is a private address'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is a loopback address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is a uniqueLocal address'],
    ['https://100.100.100.200/', '100.100.100.200 is a carrierGradeNat address'],
    ['https://localhost:1/', /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/],
  ])('%s is refused unless the operator allows private addresses', async (url, why) => {
    await expect(outboundFetch(strict, url, { headers: KEY })).rejects.toThrow(why);
    await expect(checkDestination(url, strict)).rejects.toThrow(why);
    await expect(checkDestination(url, allowed)).resolves.toBeUndefined();
  });

  test('other schemes and credentials in the URL are refused', async () => {
    await expect(outboundFetch(allowed, 'ftp://example.com/x')).rejects.toThrow('ftp:// is not called; outgoing calls use https://');
    await expect(outboundFetch(allowed, `${peer.base.replace('//', '//user:pw@')}/x`)).rejects.toThrow(/holds a user name or password; credentials go in headers/);
    await expect(checkDestination('not a url', allowed)).rejects.toThrow("'not a url' is not an absolute URL");
    expect(peer.requests).toEqual([]);
  });
});
