import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { initModels, OrganizationMembership, OutboxEvent, ScimToken } from '../../db/models';
import { createRuntime } from '../../src/runtime';
import { createLogger } from '../../src/logger';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';
import { generateToken, OTLP_TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { entraCreateUser, oktaCreateUser, SCIM } from '../support/peers/idpPayloads';
import { eventually } from '../support/peers/receiver';
import { scimClient } from '../support/scimClient';

/**
 * `/scim/v2` as identity providers use it: the request sequences Okta's SCIM 2.0 reference and Microsoft
 * Entra ID's provisioning documentation describe, RFC 7644's rules, and every kind of bad input answered in
 * the SCIM error format. Changes show on /v1 at once.
 */

const { user: CORE, group: GROUP, patch: PATCH, error: ERROR } = SCIM;

let t: TestApp;
let acme: string;
let globex: string;
let ada: string;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://api.example.com/' });
  acme = (await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' })).token;
  globex = (await createScimToken({ organizationId: DEMO.orgs.globex, name: 'Entra ID' })).token;
  ada = await t.token();
});
afterAll(async () => t.close());

const scim = (token: string) => scimClient(t.runtime.app, token);

function expectScimError(res: request.Response, status: number, scimType?: string, detail?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
  expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  if (scimType) expect(res.body.scimType).toBe(scimType);
  else expect(res.body.scimType).toBeUndefined();
  if (detail) expect(res.body.detail).toMatch(detail);
}

const members = async (org: string) => {
  const res = await t.get(`/v1/organizations/${org}/members?per_page=100&sort=created_at&created_at[gte]=2026-11-01`, ada);
  return { total: res.body.meta.total as number, byId: new Map((res.body.data as { id: string; role: string; name: string }[]).map((m) => [m.id, m])) };
};
const memberTotal = async (org: string) => (await t.get(`/v1/organizations/${org}/members?per_page=1`, ada)).body.meta.total as number;

test("Okta's sequence: look up by userName, create, read, replace, deactivate", async () => {
  const okta = scim(acme);
  const lookup = await okta.get('/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100');
  expect(lookup.status).toBe(200);
  expect(lookup.headers['content-type']).toBe('application/scim+json; charset=utf-8');
  expect(lookup.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

  const before = await memberTotal(DEMO.orgs.acme);
  const created = await okta.post('/Users', oktaCreateUser('test.user@okta.local'));
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(created.headers.location).toBe(`https://api.example.com/scim/v2/Users/${id}`);
  expect(created.body).toMatchObject({
    schemas: [CORE],
    id,
    externalId: '00ujl29u0le5T6Aj10h7',
    userName: 'test.user@okta.local',
    // As Okta sent it: given and family names, no formatted name.
    name: { givenName: 'Test', familyName: 'User' },
    displayName: 'Test User',
    active: true,
    emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
    roles: [{ value: 'collaborator', primary: true }],
    meta: { resourceType: 'User', location: created.headers.location },
  });
  expect(created.body.password).toBeUndefined();
  // On /v1 at once, counted exactly, and the new member can be given an API token.
  expect(await memberTotal(DEMO.orgs.acme)).toBe(before + 1);
  expect((await members(DEMO.orgs.acme)).byId.get(id)).toMatchObject({ name: 'Test User', role: 'collaborator' });
  const userToken = await t.token({ user: 'test.user@okta.local' });
  expect((await t.get(`/v1/organizations/${DEMO.orgs.acme}`, userToken)).status).toBe(200);

  expect((await okta.get(`/Users/${id}`)).body).toEqual(created.body);
  const found = await okta.get('/Users?filter=userName%20eq%20%22TEST.USER%40okta.local%22');
  expect(found.body.totalResults).toBe(1);
  expect(found.body.Resources[0].id).toBe(id);

  const replaced = await okta.put(`/Users/${id}`, {
    schemas: [CORE],
    id,
    userName: 'test.user@okta.local',
    name: { givenName: 'Tess', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
    active: true,
    title: 'Engineer',
    roles: [{ value: 'manager', primary: true }],
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ displayName: 'Tess User', title: 'Engineer', roles: [{ value: 'manager', primary: true }] });
  expect(replaced.body.externalId).toBeUndefined(); // a PUT replaces: what it leaves out is cleared
  expect((await members(DEMO.orgs.acme)).byId.get(id)).toMatchObject({ name: 'Tess User', role: 'manager' });

  const deactivated = await okta.patch(`/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] });
  expect(deactivated.status).toBe(200);
  expect(deactivated.body.active).toBe(false);
  expect(await memberTotal(DEMO.orgs.acme)).toBe(before);
  expect((await t.get(`/v1/organizations/${DEMO.orgs.acme}`, userToken)).status).toBe(403);
  // Still there for the identity provider, as inactive.
  expect((await okta.get('/Users?filter=active%20eq%20false')).body.Resources.map((r: { id: string }) => r.id)).toContain(id);
});

test('PATCH active=false dates the suspension; active=true clears the date', async () => {
  const okta = scim(acme);
  const created = await okta.post('/Users', oktaCreateUser(`dated.${randomBytes(4).toString('hex')}@okta.local`));
  expect(created.status).toBe(201);
  const suspendedAt = async () => (await OrganizationMembership.findOne({ where: { organization_id: DEMO.orgs.acme, user_id: created.body.id } }))!.suspended_at;
  expect(await suspendedAt()).toBeNull();
  const before = Date.now();
  expect((await okta.patch(`/Users/${created.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] })).status).toBe(200);
  expect((await suspendedAt())!.getTime()).toBeGreaterThanOrEqual(before);
  expect((await okta.patch(`/Users/${created.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: true }] })).status).toBe(200);
  expect(await suspendedAt()).toBeNull();
});

test("Entra ID's sequence: create with the enterprise extension, find by externalId, PATCH its dialect, delete", async () => {
  const entra = scim(globex);
  const externalId = '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef';
  const userName = 'Test_User_ab6490ee@testuser.com';
  expect((await entra.get(`/Users?filter=userName eq "${userName}"`)).body.totalResults).toBe(0);
  const created = await entra.post('/Users', entraCreateUser(userName, externalId));
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(created.body.userName).toBe(userName.toLowerCase());

  const byExternal = await entra.get(`/Users?filter=externalId eq "${externalId}"`);
  expect(byExternal.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);

  const updated = await entra.patch(`/Users/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'Replace', path: 'userName', value: 'updated_ab6490ee@testuser.com' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updated_ab6490ee@testuser.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ],
  });
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ userName: 'updated_ab6490ee@testuser.com', displayName: 'givenName updatedFamilyName' });

  const disabled = await entra.patch(`/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
  expect(disabled.body.active).toBe(false);

  const seq = Number((await OutboxEvent.max('seq')) ?? 0);
  expect((await entra.delete(`/Users/${id}`)).status).toBe(204);
  expectScimError(await entra.get(`/Users/${id}`), 404, undefined, /No User/);
  const events = (await OutboxEvent.findAll()).filter((e) => Number(e.seq) > seq).map((e) => [e.type, e.organization_id]);
  expect(events).toEqual([['membership.removed', DEMO.orgs.globex]]);
});

test("Okta's group push: create with members, rename with a path-less value, add and remove members, delete", async () => {
  const okta = scim(acme);
  expect((await okta.get('/Groups?filter=displayName%20eq%20%22Test%20SCIMv2%22&startIndex=1&count=100')).body.totalResults).toBe(0);
  const created = await okta.post('/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [{ value: DEMO.users.ada, display: 'ada' }] });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(created.headers.location).toBe(`https://api.example.com/scim/v2/Groups/${id}`);
  expect(created.body).toMatchObject({ schemas: [GROUP], displayName: 'Test SCIMv2', members: [{ value: DEMO.users.ada, $ref: `https://api.example.com/scim/v2/Users/${DEMO.users.ada}` }] });
  const teamMembers = async () => (await t.get(`/v1/teams/${id}/members?per_page=100&sort=name&order=asc`, ada)).body;
  expect((await teamMembers()).data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.ada]);

  const renamed = await okta.patch(`/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'Test SCIMv2 renamed' } }] });
  expect(renamed.status).toBe(200);
  expect((await t.get(`/v1/teams/${id}`, ada)).body.data.name).toBe('Test SCIMv2 renamed');

  const added = await okta.patch(`/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'add', path: 'members', value: [{ value: DEMO.users.grace, display: 'grace' }, { value: DEMO.users.linus, display: 'linus' }] }],
  });
  expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([DEMO.users.ada, DEMO.users.grace, DEMO.users.linus].sort());
  const removed = await okta.patch(`/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${DEMO.users.ada}"]` }] });
  expect(removed.body.members.map((m: { value: string }) => m.value).sort()).toEqual([DEMO.users.grace, DEMO.users.linus].sort());
  expect((await teamMembers()).meta.total).toBe(2);

  expect((await okta.delete(`/Groups/${id}`)).status).toBe(204);
  expect((await t.get(`/v1/teams/${id}`, ada)).status).toBe(404);
  expectScimError(await okta.get(`/Groups/${id}`), 404);
});

test("Entra ID's group sync: membership check by value filter, Add and Remove with value arrays, PUT", async () => {
  const entra = scim(globex);
  const created = await entra.post('/Groups', { schemas: [GROUP], externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'displayName', members: [] });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const hasMember = async (user: string) =>
    (await entra.get(`/Groups?excludedAttributes=members&filter=id eq "${id}" and members[value eq "${user}"]`)).body.totalResults as number;
  expect(await hasMember(DEMO.users.hedy)).toBe(0);

  await entra.patch(`/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: DEMO.users.hedy }] }] });
  expect(await hasMember(DEMO.users.hedy)).toBe(1);
  const withoutMembers = await entra.get(`/Groups/${id}?excludedAttributes=members`);
  expect(withoutMembers.body.members).toBeUndefined();
  expect((await entra.get(`/Groups?filter=externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"`)).body.Resources.map((g: { id: string }) => g.id)).toEqual([id]);

  await entra.patch(`/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Remove', path: 'members', value: [{ value: DEMO.users.hedy }] }] });
  expect(await hasMember(DEMO.users.hedy)).toBe(0);

  const put = await entra.put(`/Groups/${id}`, { schemas: [GROUP], displayName: 'Core team', members: [{ value: DEMO.users.outsider }, { value: DEMO.users.margaret }] });
  expect(put.body.members.map((m: { value: string }) => m.value).sort()).toEqual([DEMO.users.margaret, DEMO.users.outsider].sort());
  expect(put.body.externalId).toBeUndefined();
  // Another organization's connection does not see the team.
  expectScimError(await scim(acme).get(`/Groups/${id}`), 404);
  expectScimError(await scim(acme).patch(`/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }), 404);
});

test('paging, attributes and excludedAttributes', async () => {
  const okta = scim(acme);
  const all = await okta.get('/Users?count=0');
  expect(all.body.Resources).toEqual([]);
  const total = all.body.totalResults as number;
  expect(total).toBeGreaterThan(5);
  const page = await okta.get('/Users?startIndex=3&count=2&attributes=userName,name.givenName');
  expect(page.body).toMatchObject({ totalResults: total, startIndex: 3, itemsPerPage: 2 });
  for (const r of page.body.Resources) expect(Object.keys(r).sort()).toEqual(['id', 'name', 'schemas', 'userName']);
  expect(Object.keys(page.body.Resources[0].name)).toEqual(['givenName']);
  const firstFour = (await okta.get('/Users?count=4')).body.Resources.map((r: { id: string }) => r.id);
  expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(firstFour.slice(2, 4));
  const slim = await okta.get(`/Users/${firstFour[0]}?excludedAttributes=meta,emails`);
  expect(slim.body.meta).toBeUndefined();
  expect(slim.body.emails).toBeUndefined();
  expect(slim.body.userName).toBeDefined();
  expect((await okta.get('/Users?count=1000')).body.itemsPerPage).toBe(Math.min(100, total));
});

test('one organization never sees or changes another one’s users; a shared user keeps their profile', async () => {
  const okta = scim(acme);
  const entra = scim(globex);
  expectScimError(await entra.get(`/Users/${DEMO.users.ada}`), 404);
  expectScimError(await entra.patch(`/Users/${DEMO.users.ada}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] }), 404);
  expectScimError(await entra.delete(`/Users/${DEMO.users.ada}`), 404);
  expect((await entra.get(`/Users?filter=userName eq "${DEMO.emails.ada}"`)).body.totalResults).toBe(0);
  // margaret belongs to both: Acme may change her role, not her name.
  const margaret = (await okta.get(`/Users/${DEMO.users.margaret}`)).body;
  const put = await okta.put(`/Users/${DEMO.users.margaret}`, { ...margaret, displayName: 'Renamed By Acme', name: undefined, roles: [{ value: 'manager' }] });
  expect(put.status).toBe(200);
  expect(put.body.displayName).toBe(margaret.displayName);
  expect(put.body.roles).toEqual([{ value: 'manager', primary: true }]);
  expect((await entra.get(`/Users/${DEMO.users.margaret}`)).body.roles).toEqual([{ value: 'admin', primary: true }]);
});

describe('tokens', () => {
  test('no token, an API token, a revoked token: 401 in the SCIM format', async () => {
    expectScimError(await request(t.runtime.app).get('/scim/v2/Users'), 401, undefined, /SCIM token/);
    const api = await request(t.runtime.app).get('/scim/v2/Users').set('Authorization', `Bearer ${ada}`);
    expectScimError(api, 401, undefined, /API tokens are not accepted on \/scim\/v2/);
    expect(api.headers['www-authenticate']).toBe('Bearer realm="scim"');
    expectScimError(await scim('scim_nonsense').get('/Users'), 401, undefined, /Malformed SCIM token/);
    expectScimError(await scim(generateToken(OTLP_TOKEN_PREFIX)).get('/Users'), 401, undefined, /OTLP tokens are not accepted on \/scim\/v2/);
    // A token's use is recorded (once a minute at most), as for API tokens.
    const used = await createScimToken({ organizationId: DEMO.orgs.acme });
    expect((await scim(used.token).get('/ServiceProviderConfig')).status).toBe(200);
    let lastUsed: Date | null = null;
    for (let i = 0; i < 20 && !lastUsed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lastUsed = (await ScimToken.findByPk(used.id))!.last_used_at;
    }
    expect(lastUsed).not.toBeNull();
    const revoked = await createScimToken({ organizationId: DEMO.orgs.acme });
    await revokeToken(revoked.id);
    expectScimError(await scim(revoked.token).get('/Users'), 401, undefined, /revoked/);
  });
});

describe('bad input: the SCIM error with its scimType, and nothing written', () => {
  test('invalid JSON, wrong content type, too large, unknown attribute, duplicate, read-only, filter errors', async () => {
    const okta = scim(acme);
    const before = await memberTotal(DEMO.orgs.acme);
    const seq = Number((await OutboxEvent.max('seq')) ?? 0);
    const raw = await request(t.runtime.app).post('/scim/v2/Users').set('Authorization', `Bearer ${acme}`).set('Content-Type', 'application/scim+json').send('{"schemas": [');
    expectScimError(raw, 400, 'invalidSyntax', /not valid JSON/);
    const text = await request(t.runtime.app).post('/scim/v2/Users').set('Authorization', `Bearer ${acme}`).set('Content-Type', 'text/plain').send('hello');
    expectScimError(text, 415, undefined, /application\/scim\+json/);
    const huge = await okta.post('/Users', { schemas: [CORE], userName: 'big@x.test', displayName: 'x'.repeat(1_100_000) });
    expectScimError(huge, 413, undefined, /larger than 1048576 bytes/);
    expectScimError(await okta.post('/Users', { schemas: [CORE], userName: 'a@x.test', shoeSize: 44 }), 400, 'invalidSyntax', /Unknown attribute 'shoeSize'/);
    expectScimError(await okta.post('/Users', { schemas: [CORE], userName: 'a@x.test', active: 'maybe' }), 400, 'invalidValue', /true or false/);
    expectScimError(await okta.post('/Users', { schemas: [CORE], userName: 'a@x.test', roles: [{ value: 'owner' }] }), 400, 'invalidValue', /admin, manager, collaborator/);
    expectScimError(await okta.post('/Users', { schemas: [CORE], userName: DEMO.emails.grace.toUpperCase() }), 409, 'uniqueness', /already exists/);
    expectScimError(
      await okta.patch(`/Users/${DEMO.users.linus}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'id', value: 'usr_x' }] }),
      400,
      'mutability',
      /read-only/,
    );
    expectScimError(await okta.patch(`/Users/${DEMO.users.linus}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'shoe', value: 1 }] }), 400, 'invalidPath');
    expectScimError(await okta.get('/Users?filter=userName%20eq'), 400, 'invalidFilter', /cannot be parsed/);
    expectScimError(await okta.get('/Users?filter=nickName%20eq%20%22x%22'), 400, 'invalidFilter', /cannot be filtered on/);
    expectScimError(await okta.get('/Users?count=ten'), 400, 'invalidValue', /integer/);
    expectScimError(await okta.get('/Users?startIndex=99999999999999999999'), 400, 'invalidValue', /at most 1000000000/);
    expect((await okta.get('/Users?startIndex=1000000000&count=5')).body).toMatchObject({ startIndex: 1000000000, Resources: [] });
    expectScimError(await okta.get('/Users?colour=red'), 400, 'invalidValue', /Unknown query parameter 'colour'/);
    expectScimError(await okta.get('/Users?sortBy=userName'), 501, undefined, /Sorting is not supported/);
    expectScimError(await okta.post('/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] }), 501);
    expectScimError(await okta.get('/Me'), 501);
    expectScimError(await okta.get('/Groupies'), 404, undefined, /No SCIM endpoint/);
    expectScimError(await okta.post('/Groups', { schemas: [GROUP], displayName: 'Half', members: [{ value: DEMO.users.ada }, { value: DEMO.users.outsider }] }), 400, 'invalidValue', /Not members of this organization/);
    expectScimError(await okta.post('/Groups', { schemas: [GROUP] }), 400, 'invalidValue', /'displayName' is required/);
    expectScimError(await okta.post('/Groups', { schemas: [GROUP], displayName: 'x', colour: 'red' }), 400, 'invalidSyntax', /Unknown attribute 'colour'/);
    expectScimError(await okta.get('/Groups?filter=members%5Bvalue%20co%20%22x%22%5D'), 400, 'invalidFilter', /eq and a quoted value/);
    const groupPatch = (Operations: unknown[]) => okta.patch(`/Groups/${DEMO.teams.platform}`, { schemas: [PATCH], Operations });
    expectScimError(await groupPatch([{ op: 'replace', path: 'colour', value: 'red' }]), 400, 'invalidPath', /no attribute 'colour'/);
    expectScimError(await groupPatch([{ op: 'remove', path: 'displayName' }]), 400, 'mutability', /cannot be removed/);
    expectScimError(await groupPatch([{ op: 'add', path: `members[value eq "${DEMO.users.ada}"]`, value: [] }]), 400, 'invalidPath', /add members with path "members"/);
    expectScimError(await groupPatch([{ op: 'replace', value: { id: 'team_other' } }]), 400, 'mutability', /id is read-only/);
    expectScimError(await groupPatch([{ op: 'add', path: 'members', value: [{ display: 'no value' }] }]), 400, 'invalidValue', /needs a "value"/);
    expectScimError(await okta.patch('/Users', {}), 405);
    expect(await memberTotal(DEMO.orgs.acme)).toBe(before);
    expect(Number((await OutboxEvent.max('seq')) ?? 0)).toBe(seq);
  });
});

test('discovery: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
  const okta = scim(acme);
  const config = await okta.get('/ServiceProviderConfig');
  expect(config.status).toBe(200);
  expect(config.body).toMatchObject({
    patch: { supported: true },
    bulk: { supported: false },
    filter: { supported: true, maxResults: 100 },
    sort: { supported: false },
    changePassword: { supported: false },
  });
  const types = await okta.get('/ResourceTypes');
  expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
  expect((await okta.get('/ResourceTypes/Group')).body.endpoint).toBe('/Groups');
  expect((await okta.get('/ResourceTypes/User')).body.endpoint).toBe('/Users');
  const schemas = await okta.get('/Schemas');
  expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toEqual([CORE, GROUP]);
  const user = await okta.get(`/Schemas/${CORE}`);
  expect(user.body.attributes.map((a: { name: string }) => a.name)).toEqual(['userName', 'name', 'displayName', 'title', 'active', 'emails', 'roles']);
  expectScimError(await okta.get('/Schemas/urn:nope'), 404);
});

test('each SCIM token has limits of its own, configurable, answered with 429 and Retry-After', async () => {
  const small = await startTestApp({ SCIM_RATE_LIMIT_PER_MINUTE: '2' });
  try {
    const token = (await createScimToken({ organizationId: DEMO.orgs.acme })).token;
    const other = (await createScimToken({ organizationId: DEMO.orgs.globex })).token;
    const get = (tok: string) => request(small.runtime.app).get('/scim/v2/ServiceProviderConfig').set('Authorization', `Bearer ${tok}`);
    expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(200);
    const limited = await get(token);
    expectScimError(limited, 429, undefined, /Rate limit of 2 requests exceeded/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await get(other)).status).toBe(200);
  } finally {
    await small.close();
    // The models follow the newest connection; give them back to this file's app.
    initModels(t.runtime.sequelize);
  }
});

test('two instances: a suspension through one instance’s SCIM bites on the other’s /v1 within 5 s, totals at once (with Redis)', async () => {
  const created = await scim(acme).post('/Users', { schemas: [CORE], userName: 'two.instances@acme.test', displayName: 'Two Instances' });
  const token = await t.token({ user: 'two.instances@acme.test' });
  const second = createRuntime(t.config, createLogger('silent'), { rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}` });
  try {
    const viaB = (path: string, bearer = token) => request(second.app).get(path).set('Authorization', `Bearer ${bearer}`);
    expect((await viaB(`/v1/organizations/${DEMO.orgs.acme}`)).status).toBe(200); // B caches the principal
    initModels(t.runtime.sequelize);
    const before = (await viaB(`/v1/organizations/${DEMO.orgs.acme}/members?per_page=1`, ada)).body.meta.total;
    await scim(acme).patch(`/Users/${created.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] });
    // With Redis the change's versions reach B before the PATCH is answered; without it, by B's poll within a second.
    const total = async () => (await viaB(`/v1/organizations/${DEMO.orgs.acme}/members?per_page=1`, ada)).body.meta.total;
    if (t.config.REDIS_URL) expect(await total()).toBe(before - 1);
    else await eventually('B to poll the new data versions', async () => (await total()) === before - 1, 2_000);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 7_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await viaB(`/v1/organizations/${DEMO.orgs.acme}`)).status;
    }
    expect(status).toBe(403);
    // docs/api.md#tokens-limits-and-headers promises 5 s; every instance reads the access changes each second, so it takes about one.
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThanOrEqual(2_500);
    process.stdout.write(`suspension applied by the other instance after ${elapsed} ms\n`);
  } finally {
    await second.close();
    initModels(t.runtime.sequelize);
  }
});

test('no body or query, however malformed, gets a 5xx; every refusal is a SCIM error', async () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const values = (): unknown =>
    pick<() => unknown>([
      () => null,
      () => true,
      () => 'False',
      () => -1,
      () => 1e308,
      () => '',
      () => 'x'.repeat(300),
      () => '"\\]\u0000',
      () => 'ada\u0000@acme.test',
      () => [],
      () => [{}],
      () => [{ value: DEMO.users.ada }],
      () => ({ value: 'usr_nope' }),
      () => ({ givenName: 5 }),
      () => ({ __proto__: { admin: true } }),
    ])();
  const attributes = ['userName', 'displayName', 'name', 'active', 'roles', 'emails', 'title', 'externalId', 'members', 'id', 'meta', 'schemas', 'Operations', 'op', 'path', 'value'];
  const body = (): unknown => {
    if (random() < 0.1) return values();
    const out: Record<string, unknown> = { schemas: pick([[CORE], [GROUP], [PATCH], ['x'], 'x']) };
    for (let i = 0; i < 1 + random() * 4; i++) out[pick(attributes)] = values();
    if (random() < 0.5) out.Operations = [{ op: pick(['add', 'Replace', 'remove', 'x', 5]), path: pick([undefined, 'members', 'active', 'name.givenName', 'members[value eq "x"]', 'a[b', '']), value: values() }];
    return out;
  };
  const filters = ['userName eq "a\u0000b"', 'name.givenName co "\u0000"', 'userName eq "a', 'userName eq "a" or', 'not ()', 'members[value eq 5]', 'meta.created gt "x"', '((((', 'a'.repeat(2000) + ' pr', 'title co null', 'active eq 1'];
  const okta = scim(acme);
  const statuses = new Map<number, number>();
  for (let i = 0; i < 240; i++) {
    const target = pick(['/Users', `/Users/${DEMO.users.linus}`, '/Groups', `/Groups/${DEMO.teams.platform}`, '/Users/usr_nope', '/Users/x%00y', '/Groups/x%00y']);
    const method = pick(['post', 'put', 'patch', 'get'] as const);
    const res =
      method === 'get'
        ? await okta.get(`${target}?filter=${encodeURIComponent(pick(filters))}&${pick(['count=-5', 'startIndex=0', 'attributes=', 'excludedAttributes=meta', 'count=1'])}`)
        : await okta[method](target, body());
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    expect(res.status).toBeLessThan(500);
    if (res.status >= 400) expect(res.body.schemas).toEqual([ERROR]);
  }
  // The inputs reach the checks they are meant for, not only the first one.
  expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3);
});
