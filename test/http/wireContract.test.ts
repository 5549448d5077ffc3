import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { wireContract } from '../support/wireContract';

/**
 * The check that holds every test response to the OpenAPI document (test/support/wireContract.ts): it is live
 * in every test file, and it does catch a response that departs from the document, so a green suite means
 * the wire matches.
 */

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(async () => t.close());

const RATE_LIMIT_HEADERS = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1790000000' };
const json = { 'content-type': 'application/json; charset=utf-8', etag: '"2a-abc"', 'cache-control': 'private, no-cache', link: '</v1/users?page=1>; rel="first", </v1/users?page=1>; rel="last"' };
const user = { id: DEMO.users.ada, name: 'Ada Lovelace', email: DEMO.emails.ada, created_at: '2024-01-02T09:00:00.000Z' };
const check = (res: Partial<Parameters<ReturnType<typeof wireContract>['check']>[0]>) =>
  wireContract().check({ method: 'GET', url: '/v1/users/usr_ada', status: 200, headers: { ...json, ...RATE_LIMIT_HEADERS }, body: '', ...res });

test('responses sent by the app are checked as they leave, on every kind of path', async () => {
  const before = wireContract().checked;
  await t.get(`/v1/users/${DEMO.users.ada}`, token).expect(200);
  await t.get('/v1/dashboard-views/catalog?sort=name', token).expect(200);
  await t.get('/v1/no-such-thing', token).expect(404);
  await request(t.runtime.app).get('/v1/users').expect(401);
  await request(t.runtime.app).head(`/v1/users/${DEMO.users.ada}`).set('Authorization', `Bearer ${token}`);
  expect(wireContract().checked - before).toBe(5);
  expect(wireContract().violations).toEqual([]);
});

test('a conforming response passes', () => {
  expect(check({ body: JSON.stringify({ status: 'success', data: user }) })).toEqual([]);
  expect(check({ body: JSON.stringify({ status: 'success', data: { id: user.id } }) })).toEqual([]);
});

test('a column the schema does not name is caught', () => {
  const leaked = check({ body: JSON.stringify({ status: 'success', data: { ...user, token_hash: 'abc' } }) });
  expect(leaked).toEqual([expect.stringContaining('must NOT have additional properties')]);
  expect(leaked[0]).toContain('token_hash');
});

test('a wrong type, a missing meta counter and a bad enum value are caught', () => {
  expect(check({ body: JSON.stringify({ status: 'success', data: { ...user, created_at: 'yesterday' } }) })).toHaveLength(1);
  const list = { status: 'success', data: [user], meta: { page: 1, per_page: 50, total: 1, sort: 'created_at', order: 'desc' } };
  expect(check({ url: '/v1/users', body: JSON.stringify(list) })).toEqual([expect.stringContaining('total_pages')]);
  const member = { ...user, role: 'owner' };
  const members = { ...list, data: [member], meta: { ...list.meta, total_pages: 1 } };
  expect(check({ url: '/v1/organizations/org_acme/members', body: JSON.stringify(members) })).toEqual([expect.stringContaining('/data/0/role')]);
});

test('an undeclared status, a missing rate-limit header and a non-JSON body are caught', () => {
  expect(check({ status: 418, body: '{}' })).toEqual([expect.stringContaining('status 418 is not declared')]);
  const { 'x-ratelimit-reset': _reset, ...twoHeaders } = RATE_LIMIT_HEADERS;
  expect(check({ headers: { ...json, ...twoHeaders }, body: JSON.stringify({ status: 'success', data: user }) })).toEqual([
    expect.stringContaining('header X-RateLimit-Reset is missing'),
  ]);
  expect(check({ status: 404, body: '<h1>Not Found</h1>' })).toEqual([expect.stringContaining('body is not JSON')]);
  // HEAD carries headers only, documented path or not.
  expect(check({ method: 'HEAD', body: '' })).toEqual([]);
  expect(check({ method: 'HEAD', url: '/v1/nowhere', status: 404, body: '' })).toEqual([]);
});

test('errors must be the envelope, on documented paths and on unknown ones', () => {
  const envelope = JSON.stringify({ status: 'error', error: { code: 'NOT_FOUND', message: 'User not found' } });
  expect(check({ status: 404, body: envelope })).toEqual([]);
  expect(check({ status: 404, body: JSON.stringify({ message: 'User not found', code: 'NOT_FOUND' }) })).not.toEqual([]);
  expect(check({ url: '/v1/nowhere', status: 404, body: envelope })).toEqual([]);
  expect(check({ url: '/v1/nowhere', status: 404, headers: json, body: envelope })).toEqual([
    expect.stringContaining('header X-RateLimit-Limit is missing'),
    expect.stringContaining('header X-RateLimit-Remaining is missing'),
    expect.stringContaining('header X-RateLimit-Reset is missing'),
  ]);
  expect(check({ url: '/v1/nowhere', status: 404, body: JSON.stringify({ error: 'Not found' }) })).not.toEqual([]);
  expect(check({ url: '/v1/nowhere', status: 200, body: '{}' })).toEqual([
    expect.stringContaining('for a path the document does not have'),
    expect.stringContaining('does not match'),
  ]);
  expect(check({ status: 500, body: JSON.stringify({ status: 'error', error: { code: 'SERVER_ERROR', message: 'x', stack: 'at …' } }) })).not.toEqual([]);
});

test('static segments win over parameters, as in the router', () => {
  const catalog = { status: 'success', data: [{ key: 'dora', name: 'DORA', description: 'd', category: 'delivery' }], meta: { page: 1, per_page: 50, total: 1, total_pages: 1, sort: 'key', order: 'asc' } };
  const link = '</v1/dashboard-views/catalog?page=1>; rel="first", </v1/dashboard-views/catalog?page=1>; rel="last"';
  expect(check({ url: '/v1/dashboard-views/catalog', headers: { ...json, ...RATE_LIMIT_HEADERS, link }, body: JSON.stringify(catalog) })).toEqual([]);
});
