import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { NulInStatementError } from '../../db/connection';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { SCIM } from '../support/peers/idpPayloads';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { scimClient } from '../support/scimClient';

/**
 * A NUL byte (and other control characters where they make no sense) is refused at the edge of every surface
 * in that surface's terms (SQLite reads a statement only up to a NUL: it was a 500 on the embedded default),
 * and the data layer refuses any statement that would still carry one.
 */

const { user: CORE, patch: PATCH, error: ERROR } = SCIM;

let t: TestApp;
let scimToken: string;
let apiToken: string;
beforeAll(async () => {
  t = await startTestApp();
  scimToken = (await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' })).token;
  apiToken = await t.token();
});
afterAll(async () => t.close());

const scim = (method: 'get' | 'put' | 'patch' | 'delete' | 'post', path: string, body?: string) => scimClient(t.runtime.app, scimToken).call(method, path, body);

function expectScim(res: request.Response, status: number, scimType?: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
  expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  if (scimType) expect(res.body.scimType).toBe(scimType);
}

describe('SCIM', () => {
  const patchBody = JSON.stringify({ schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] });
  const userBody = JSON.stringify({ schemas: [CORE], userName: 'x@acme.test' });

  test.each([
    ['get', '/Users/x%00y', undefined],
    ['put', '/Users/x%00y', userBody],
    ['patch', '/Users/x%00y', patchBody],
    ['delete', '/Users/x%00y', undefined],
    ['get', '/Groups/x%00y', undefined],
    ['patch', '/Groups/x%0Ay', patchBody],
  ] as const)('%s %s → 404', async (method, path, body) => {
    expectScim(await scim(method, path, body), 404);
  });

  test('a userName, a name or any attribute holding a NUL → 400 invalidValue, nothing written', async () => {
    const userName = `nul-${randomUUID().slice(0, 8)}@acme.test`;
    for (const body of [
      { schemas: [CORE], userName: `a\u0000${userName}` },
      { schemas: [CORE], userName, displayName: 'Ada\u0000' },
      { schemas: [CORE], userName, name: { givenName: 'A\u0000' } },
      { schemas: [CORE], userName, nickName: 'ignored but \u0000' },
    ]) {
      expectScim(await scim('post', '/Users', JSON.stringify(body)), 400, 'invalidValue');
    }
    expect((await scim('get', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.totalResults).toBe(0);
  });

  test('other control characters in a name or title → 400 invalidValue naming the attribute', async () => {
    const res = await scim('post', '/Users', JSON.stringify({ schemas: [CORE], userName: `tab-${randomUUID().slice(0, 8)}@acme.test`, title: 'Eng\tineer' }));
    expectScim(res, 400, 'invalidValue');
    expect(res.body.detail).toMatch(/'title' must not contain control characters/);
  });

  test('a filter or other parameter holding a NUL → 400', async () => {
    expectScim(await scim('get', '/Users?filter=userName%20eq%20%22a%00b%22'), 400, 'invalidFilter');
    expectScim(await scim('get', '/Users?attributes=user%00Name'), 400, 'invalidValue');
  });
});

describe('REST and tRPC', () => {
  test.each(['/v1/users/x%00y', '/v1/teams/team%00', '/v1/users?sort=na%00me', '/v1/commits?created_at[gte]=2024-01-01%00', '/v1/users/x%0D%0Ay'])(
    '%s → 400 VALIDATION_ERROR',
    async (path) => {
      const res = await t.get(path, apiToken);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'error', error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/control characters/) } });
    },
  );

  test('a tRPC input holding a NUL → 400 in tRPC terms', async () => {
    const input = encodeURIComponent(JSON.stringify({ id: 'usr_\u0000' }));
    const res = await request(t.runtime.app).get(`/trpc/users.get?input=${input}`).set('Authorization', `Bearer ${apiToken}`);
    expect(res.status).toBe(400);
    expect(res.body.error.data.code).toBe('VALIDATION_ERROR');
  });
});

describe('ingest', () => {
  test('a git app id holding a NUL → 404', async () => {
    const res = await request(t.runtime.app).post('/ingest/github/gapp_%00x').set('Content-Type', 'application/json').send('{}');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test('a signed delivery whose payload holds a NUL → 400, nothing stored', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
    const payload = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
    payload.commits[0].message = 'fix\u0000';
    const res = await deliverToGithub(t, gitApp.id, secret, { event: 'push', payload });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/NUL/) });
    expect((await t.get(`/v1/git/apps/${gitApp.id}/repositories`, apiToken)).body.meta.total).toBe(0);
  });
});

test('below the edges, no statement carrying a NUL reaches the database', async () => {
  // MySQL's escaping writes a NUL in a value as `\0`; SQLite's leaves it in the text, which the data layer refuses.
  const lookup = t.runtime.writers.members.find(DEMO.orgs.acme, 'usr_\u0000');
  if (t.runtime.sequelize.getDialect() === 'sqlite') await expect(lookup).rejects.toBeInstanceOf(NulInStatementError);
  else await expect(lookup).resolves.toBeUndefined();
  await expect(t.runtime.sequelize.query("SELECT 1 WHERE 'a' = 'a\u0000'")).rejects.toBeInstanceOf(NulInStatementError);
});

test('a body of deeply nested or very long arrays is refused or stored, never a 500', async () => {
  const deep = `{"schemas":["${CORE}"],"userName":"deep@acme.test","x":${'['.repeat(60_000)}${']'.repeat(60_000)}}`;
  const res = await scim('post', '/Users', deep);
  expect(res.status).toBeLessThan(500);
  expect(res.body.schemas).toEqual([ERROR]);
  const long = JSON.stringify({ schemas: [CORE], userName: 'long@acme.test', x: Array.from({ length: 200_000 }, () => 0) });
  expect((await scim('post', '/Users', long)).status).toBeLessThan(500);
  const filter = `${'not ('.repeat(1_500)}userName eq "a"${')'.repeat(1_500)}`;
  expect((await scim('get', `/Users?filter=${encodeURIComponent(filter)}`)).status).toBeLessThan(500);
});
