import { randomUUID } from 'node:crypto';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { entraCreateUser, oktaCreateUser, SCIM } from '../support/peers/idpPayloads';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { appCli } from '../support/cli';
import { unique } from '../support/common';
import { scimClient } from '../support/scimClient';

/**
 * What identity providers compare: every attribute they send comes back as sent (so a sync settles), every
 * attribute we answer with can be filtered on, `not` keeps resources whose attribute is absent, and an
 * identity provider's extra addresses identify the member as a git author. Bodies are Okta's and Entra ID's.
 */

const { user: CORE, patch: PATCH } = SCIM;

let t: TestApp;
let okta: string;
let entra: string;
let ada: string;
beforeAll(async () => {
  t = await startTestApp();
  okta = (await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' })).token;
  entra = (await createScimToken({ organizationId: DEMO.orgs.globex, name: 'Entra ID' })).token;
  ada = await t.token();
});
afterAll(async () => t.close());

const scim = (token: string) => scimClient(t.runtime.app, token);
/** Okta's create body; its fixed externalId made unique, as each user's is. */
const oktaUser = (userName: string) => ({ ...oktaCreateUser(userName), externalId: `00u${unique()}` });
const filtered = async (token: string, filter: string) => {
  const res = await scim(token).get(`/Users?filter=${encodeURIComponent(filter)}&count=100`);
  expect(res.status).toBe(200);
  return (res.body.Resources as { userName: string }[]).map((r) => r.userName).sort();
};

describe('attributes are kept as sent', () => {
  test("Okta's names: the 201, every GET and attributes=name.givenName answer what Okta sent", async () => {
    const userName = `okta-${unique()}@acme.test`;
    const body = { ...oktaUser(userName), name: { givenName: 'Oktaabc', familyName: 'Scimbar' }, displayName: 'okta abc' };
    const created = await scim(okta).post('/Users', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: { givenName: 'Oktaabc', familyName: 'Scimbar' }, displayName: 'okta abc' });
    const id = created.body.id as string;
    expect((await scim(okta).get(`/Users/${id}`)).body).toEqual(created.body);
    expect((await scim(okta).get(`/Users/${id}?attributes=name.givenName`)).body.name).toEqual({ givenName: 'Oktaabc' });
    // /v1 shows one name: the displayName.
    expect((await t.get(`/v1/users/${id}`, ada)).body.data.name).toBe('okta abc');
  });

  test("Entra ID's work e-mail: PATCH Replace emails[type eq \"work\"].value is stored and answered", async () => {
    const userName = `upn-${unique()}@contoso.onmicrosoft.com`;
    const created = await scim(entra).post('/Users', entraCreateUser(userName, randomUUID()));
    const id = created.body.id as string;
    const mail = `mail-${unique()}@contoso.com`;
    const patched = await scim(entra).patch(`/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: mail }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.userName).toBe(userName);
    expect(patched.body.emails).toEqual([{ value: mail, type: 'work', primary: true }]);
    expect((await scim(entra).get(`/Users/${id}`)).body.emails).toEqual([{ value: mail, type: 'work', primary: true }]);
    expect(await filtered(entra, `emails[type eq "work" and value eq "${mail}"]`)).toEqual([userName]);
  });

  test('an address that is another user’s is refused with 409 uniqueness, and nothing is written', async () => {
    const created = await scim(okta).post('/Users', oktaUser(`taken-${unique()}@acme.test`));
    const res = await scim(okta).patch(`/Users/${created.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'emails', value: [{ value: DEMO.emails.grace, type: 'home' }] }],
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ scimType: 'uniqueness', detail: expect.stringContaining(DEMO.emails.grace) });
    expect((await scim(okta).get(`/Users/${created.body.id}`)).body.emails).toEqual(created.body.emails);
  });

  test('a userName that is another user’s address is refused too', async () => {
    const other = `other-${unique()}@acme.test`;
    await scim(okta).post('/Users', { schemas: [CORE], userName: `owner-${unique()}@acme.test`, emails: [{ value: other, type: 'home' }] });
    const mover = await scim(okta).post('/Users', { schemas: [CORE], userName: `mover-${unique()}@acme.test` });
    const res = await scim(okta).patch(`/Users/${mover.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: other }] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ scimType: 'uniqueness', detail: expect.stringContaining(other) });
    expect((await scim(okta).post('/Users', { schemas: [CORE], userName: other })).status).toBe(409);
  });

  test('a sync that sends every user twice reads back what it sent, and the second time changes nothing', async () => {
    const run = unique();
    const bodies = [
      { ...oktaUser(`twice-a-${run}@acme.test`), name: { givenName: 'Oktaabc', familyName: 'Scimbar' }, displayName: 'okta abc' },
      { ...entraCreateUser(`twice-b-${run}@acme.test`, randomUUID()), emails: [{ primary: true, type: 'work', value: `mail-b-${run}@acme.test` }] },
      { schemas: [CORE], userName: `twice-c-${run}@acme.test`, name: { familyName: 'Only' }, title: 'Engineer' },
    ];
    // What an identity provider compares: the attributes it sent that the service keeps.
    const kept = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).filter(([k]) => ['name', 'displayName', 'emails', 'title', 'externalId', 'active'].includes(k)));
    const first = [];
    for (const body of bodies) {
      const created = await scim(okta).post('/Users', body);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject(kept(body));
      first.push(created.body);
    }
    for (const [i, body] of bodies.entries()) {
      const again = await scim(okta).put(`/Users/${first[i].id}`, body);
      expect(again.status).toBe(200);
      // Same resource, same version: nothing for the identity provider to push again.
      expect(again.body).toEqual(first[i]);
    }
  });
});

describe('filters on every attribute we answer with', () => {
  let run: string;
  beforeAll(async () => {
    run = unique();
    const people = [
      { userName: `f1-${run}@globex.test`, name: { givenName: 'Bea', familyName: 'Ng', formatted: 'Dr. Bea Ng' }, title: 'Engineer', emails: [{ value: `bea-${run}@home.test`, type: 'home' }] },
      { userName: `f2-${run}@globex.test`, name: { givenName: 'Bo', familyName: 'Ek' }, title: 'Designer', externalId: `x-${run}` },
      { userName: `f3-${run}@globex.test`, name: { givenName: 'Cy' }, displayName: 'Cy Untitled' },
    ];
    for (const p of people) expect((await scim(entra).post('/Users', { schemas: [CORE], ...p })).status).toBe(201);
  });
  const mine = (filter: string) => filtered(entra, `userName co "${run}" and (${filter})`);
  const u = (n: number) => `f${n}-${run}@globex.test`;

  test.each([
    ['name.givenName eq "bea"', [1]],
    ['name.givenName sw "B"', [1, 2]],
    ['name.familyName eq "Ek"', [2]],
    ['name.formatted co "Dr."', [1]],
    ['name.familyName pr', [1, 2]],
    ['not (name.familyName pr)', [3]],
    ['not (name.givenName sw "Bo")', [1, 3]],
    ['displayName eq "Cy Untitled"', [3]],
    ['emails.value ew "@home.test"', [1]],
    ['emails[type eq "home"]', [1]],
    ['emails[type eq "work" and primary eq true]', [2, 3]],
    ['emails.primary eq true', [2, 3]],
    ['not (emails[type eq "home"])', [2, 3]],
    ['title pr', [1, 2]],
    ['externalId ne "nope"', [1, 2, 3]],
    ['meta.resourceType eq "User"', [1, 2, 3]],
    ['meta.lastModified gt "2000-01-01T00:00:00Z"', [1, 2, 3]],
  ] as [string, number[]][])('%s', async (filter, expected) => {
    expect(await mine(filter)).toEqual(expected.map(u));
  });

  test('not (…) keeps users whose attribute is absent (RFC 7644, not SQL NULL logic)', async () => {
    expect(await mine('not (title eq "Engineer")')).toEqual([u(2), u(3)]);
    expect(await mine('not (externalId eq "nope")')).toEqual([u(1), u(2), u(3)]);
    expect(await mine('not (title co "sign") and not (title sw "Eng")')).toEqual([u(3)]);
  });
});

test('every address an identity provider sent matches its member as a commit author', async () => {
  const run = unique();
  const userName = `dev-${run}@acme.test`;
  const work = `dev-${run}@work.example`;
  const created = await scim(okta).post('/Users', { schemas: [CORE], userName, emails: [{ value: userName, primary: true }, { value: work, type: 'other' }] });
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${run}`);
  const payload = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
  payload.commits[0].author.email = work.toUpperCase();
  payload.commits[0].id = `${run}${'0'.repeat(40)}`.slice(0, 40);
  expect((await deliverToGithub(t, gitApp.id, secret, { event: 'push', payload })).status).toBe(200);
  const commits = await t.get(`/v1/git/apps/${gitApp.id}/repositories/all/commits`, ada);
  expect(commits.body.data.map((c: { author_id: string }) => c.author_id)).toEqual([created.body.id]);
});

test('npm run scim:sync: in a second full sync every user reads back as sent, and none is pushed again', async () => {
  const origin = await t.listen();
  const run = await appCli(t, 'scim-sync')('--url', origin, '--scim-token', okta, '--api-token', ada, '--org', DEMO.orgs.acme, '--users', '20', '--groups', '3');
  expect(run.stderr).not.toMatch(/scim-sync: (?!.* done)/);
  expect(run.stdout).toMatch(/\| full sync again: 20 users \(lookup, compare, replace where different\): 0 pushed again \| 20 \| 0 \|/);
  expect(run.code).toBe(0);
}, 60_000);
