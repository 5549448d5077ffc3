import request from 'supertest';
import { OutboxEvent } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { scimClient } from '../support/scimClient';
import { publicBase } from '../../src/config';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';

/**
 * `settings.teams.*` (docs/settings.md#teams): an organization's admin makes its teams by hand, and they are the
 * organization's teams everywhere (/v1 reads them with an API token); each change audited as theirs, with the
 * outgoing events SCIM's changes send. Refused: other roles (403), an API token or no session (401), a foreign
 * Origin (403), another organization's team (404), and a team the identity provider owns (409).
 */

let t: TestApp;
let origin: string;
let ada: SettingsBrowser;
let adaToken: string;
beforeAll(async () => {
  t = await startTestApp();
  origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
  adaToken = await t.token();
});
afterAll(async () => t?.close());

const data = (res: request.Response) => res.body.result.data;
const errorOf = (res: request.Response) => ({ status: res.status, code: res.body.error?.data?.code, message: res.body.error?.message as string });
const acme = { organization_id: DEMO.orgs.acme };
const eventsOf = async (teamId: string) =>
  (await OutboxEvent.findAll({ where: { organization_id: DEMO.orgs.acme }, order: [['seq', 'ASC']] })).filter((e) => JSON.parse(e.data).id === teamId).map((e) => e.type);
const auditOf = async (teamId: string) => {
  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, adaToken);
  return (log.body.data as { target_id: string; action: string; actor_user_id: string; details: Record<string, unknown> }[]).filter((e) => e.target_id === teamId);
};

test('an admin makes a team, fills it, names its manager, renames and deletes it: /v1 shows each step, audited as theirs, with the teams’ events', async () => {
  const created = data(await ada.mutate('settings.teams.create', { ...acme, name: '  Data Platform ' }));
  expect(created).toEqual({ id: expect.stringMatching(/^team_/), organization_id: DEMO.orgs.acme, name: 'Data Platform', members: 0, provisioned_by_identity_provider: false, created_at: expect.any(String) });
  const id = created.id;
  expect((await t.get(`/v1/teams/${id}`, adaToken)).body.data).toEqual({ id, organization_id: DEMO.orgs.acme, name: 'Data Platform', created_at: created.created_at });

  // By e-mail (any case) or by id; an active member of the organization only.
  expect(data(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: 'Linus@Demo.test' }))).toMatchObject({ user_id: DEMO.users.linus, team: { members: 1 } });
  expect(data(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: DEMO.users.margaret }))).toMatchObject({ team: { members: 2 } });
  // Adding someone already there changes nothing.
  expect(data(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: DEMO.users.margaret }))).toMatchObject({ team: { members: 2 } });
  const members = await t.get(`/v1/teams/${id}/members`, adaToken);
  expect(members.status).toBe(200);
  expect(members.body.data.map((m: { id: string }) => m.id).sort()).toEqual([DEMO.users.linus, DEMO.users.margaret]);

  expect(data(await ada.mutate('settings.teams.setRole', { ...acme, team_id: id, user_id: DEMO.users.linus, role: 'manager' }))).toEqual({ team_id: id, user_id: DEMO.users.linus, role: 'manager' });
  const managers = await t.get(`/v1/teams/${id}/managers`, adaToken);
  expect(managers.body.data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.linus]);
  expect(data(await ada.query('settings.teams.members', { ...acme, team_id: id }))).toEqual({
    total: 2,
    members: [
      { user_id: DEMO.users.linus, name: expect.any(String), email: DEMO.emails.linus, role: 'manager', status: 'active' },
      { user_id: DEMO.users.margaret, name: expect.any(String), email: DEMO.emails.margaret, role: 'member', status: 'active' },
    ],
  });

  expect(data(await ada.mutate('settings.teams.removeMember', { ...acme, team_id: id, user: DEMO.emails.margaret }))).toMatchObject({ user_id: DEMO.users.margaret, team: { members: 1 } });
  expect(data(await ada.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'Data' }))).toMatchObject({ id, name: 'Data', members: 1 });
  expect((await t.get(`/v1/teams/${id}`, adaToken)).body.data.name).toBe('Data');
  expect(data(await ada.query('settings.teams.list', acme)).find((team: { id: string }) => team.id === id)).toMatchObject({ name: 'Data', members: 1 });

  expect(data(await ada.mutate('settings.teams.delete', { ...acme, team_id: id }))).toEqual({ id, name: 'Data' });
  expect((await t.get(`/v1/teams/${id}`, adaToken)).status).toBe(404);

  expect(await eventsOf(id)).toEqual(['team.created', 'team.updated', 'team.updated', 'team.updated', 'team.updated', 'team.updated', 'team.deleted']);
  const audit = await auditOf(id);
  expect(audit.map((e) => [e.action, e.details])).toEqual([
    ['team.deleted', { name: 'Data', members: 1 }],
    ['team.renamed', { from: 'Data Platform', to: 'Data' }],
    ['team.member_removed', { user_id: DEMO.users.margaret }],
    ['team.member_role_set', { user_id: DEMO.users.linus, role: 'manager' }],
    ['team.member_added', { user_id: DEMO.users.margaret }],
    ['team.member_added', { user_id: DEMO.users.linus }],
    ['team.created', { name: 'Data Platform' }],
  ]);
  for (const e of audit) expect(e).toMatchObject({ actor_user_id: DEMO.users.ada });
});

test('mistakes are refused with what to fix: a taken name (any case), no name, an unknown team or member, someone not active here', async () => {
  const { id } = data(await ada.mutate('settings.teams.create', { ...acme, name: 'Reliability' }));
  expect(errorOf(await ada.mutate('settings.teams.create', { ...acme, name: 'reliability' }))).toEqual({ status: 409, code: 'CONFLICT', message: 'This organization already has a team named reliability: choose another name' });
  expect(errorOf(await ada.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'PLATFORM' }))).toMatchObject({ status: 409, code: 'CONFLICT' });
  // Renamed to itself in another case: its own name is no conflict.
  expect(data(await ada.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'RELIABILITY' }))).toMatchObject({ name: 'RELIABILITY' });
  expect(errorOf(await ada.mutate('settings.teams.create', { ...acme, name: '   ' }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('name must not be empty') });
  expect(errorOf(await ada.mutate('settings.teams.create', { ...acme, name: 'x'.repeat(201) }))).toMatchObject({ status: 400, message: expect.stringContaining('at most 200') });
  expect(errorOf(await ada.mutate('settings.teams.rename', { ...acme, team_id: 'team_nope', name: 'X' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: 'nobody@demo.test' }))).toMatchObject({ status: 404, message: expect.stringContaining('nobody@demo.test') });
  // A suspended member, and a member of another organization only, are no active members here.
  const members = t.runtime.writers.members;
  const suspended = await members.provision(DEMO.orgs.acme, { email: 'suspended.teams@demo.test', name: 'Sus Pended', role: 'collaborator', active: true, externalId: null, title: null });
  await members.update(DEMO.orgs.acme, suspended.user.id, { email: 'suspended.teams@demo.test', name: 'Sus Pended', role: 'collaborator', active: false, externalId: null, title: null });
  expect(errorOf(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: 'suspended.teams@demo.test' }))).toMatchObject({ status: 404, message: 'No active member suspended.teams@demo.test in this organization' });
  expect(errorOf(await ada.mutate('settings.teams.addMember', { ...acme, team_id: id, user: DEMO.emails.outsider }))).toMatchObject({ status: 404 });
  expect(errorOf(await ada.mutate('settings.teams.removeMember', { ...acme, team_id: id, user: DEMO.users.linus }))).toMatchObject({ status: 404, message: expect.stringContaining('is not on team') });
  expect(errorOf(await ada.mutate('settings.teams.setRole', { ...acme, team_id: id, user_id: DEMO.users.linus, role: 'manager' }))).toMatchObject({ status: 404 });
  expect(errorOf(await ada.mutate('settings.teams.setRole', { ...acme, team_id: id, user_id: DEMO.users.linus, role: 'boss' }))).toMatchObject({ status: 400, message: expect.stringContaining('member or manager') });
  expect(data(await ada.query('settings.teams.list', acme)).find((team: { id: string }) => team.id === id)).toMatchObject({ members: 0 });
});

test('others are refused: a manager, a collaborator, an API token, no session, a foreign Origin; another organization’s team is not found', async () => {
  const { id } = data(await ada.mutate('settings.teams.create', { ...acme, name: 'Guarded' }));
  const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
  const linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
  for (const who of [grace, linus]) {
    expect(errorOf(await who.query('settings.teams.list', acme))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(await who.mutate('settings.teams.create', { ...acme, name: 'Mine' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(await who.mutate('settings.teams.addMember', { ...acme, team_id: id, user: DEMO.users.linus }))).toMatchObject({ status: 403 });
  }
  expect(errorOf(await ada.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'Taken over' }, { Origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  expect(errorOf(await ada.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'Taken over' }, { Authorization: `Bearer ${adaToken}` }))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  const tokenOnly = await request(t.runtime.app).get(`/trpc/settings.teams.list?input=${encodeURIComponent(JSON.stringify(acme))}`).set('Authorization', `Bearer ${adaToken}`);
  expect(errorOf(tokenOnly)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  const anonymous = await request(t.runtime.app).post('/trpc/settings.teams.create').set({ Origin: origin, 'Content-Type': 'application/json' }).send(JSON.stringify({ ...acme, name: 'Nobody’s' }));
  expect(errorOf(anonymous)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

  // Margaret administers Globex: Acme's team is not found through Globex, and Acme itself is not hers to change.
  const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
  const globex = { organization_id: DEMO.orgs.globex };
  expect(errorOf(await margaret.mutate('settings.teams.rename', { ...globex, team_id: id, name: 'Mine now' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.mutate('settings.teams.delete', { ...globex, team_id: DEMO.teams.platform }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.query('settings.teams.members', { ...globex, team_id: id }))).toMatchObject({ status: 404 });
  expect(errorOf(await margaret.mutate('settings.teams.rename', { ...acme, team_id: id, name: 'Mine now' }))).toMatchObject({ status: 403 });
  expect(data(await margaret.query('settings.teams.list', globex)).map((team: { id: string }) => team.id)).not.toContain(id);
  expect((await t.get(`/v1/teams/${id}`, adaToken)).body.data.name).toBe('Guarded');
});

test('a team the identity provider made is its own while it has an active SCIM token; hand-made teams live beside it', async () => {
  const { id: scimTokenId, token } = await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' });
  const okta = scimClient(t.runtime.app, token);
  const pushed = await okta.post('/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Okta Pushed', members: [] });
  expect(pushed.status).toBe(201);
  const groupId = pushed.body.id;
  expect(data(await ada.query('settings.teams.list', acme)).find((team: { id: string }) => team.id === groupId)).toMatchObject({ provisioned_by_identity_provider: true });
  for (const [path, input] of [
    ['settings.teams.rename', { name: 'By hand' }],
    ['settings.teams.addMember', { user: DEMO.users.linus }],
    ['settings.teams.delete', {}],
  ] as const) {
    expect(errorOf(await ada.mutate(path, { ...acme, team_id: groupId, ...input }))).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: 'Team Okta Pushed is provisioned by your identity provider (SCIM): change it there, where it would otherwise be changed back',
    });
  }

  // A hand-made team beside it; once the provider changes it, it is the provider's too.
  const { id: handMade } = data(await ada.mutate('settings.teams.create', { ...acme, name: 'Hand made' }));
  expect(data(await ada.mutate('settings.teams.addMember', { ...acme, team_id: handMade, user: DEMO.users.linus }))).toMatchObject({ team: { members: 1 } });
  const linked = await okta.patch(`/Groups/${handMade}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', value: { displayName: 'Hand made' } }],
  });
  expect(linked.status).toBe(200);
  expect(errorOf(await ada.mutate('settings.teams.rename', { ...acme, team_id: handMade, name: 'Still mine?' }))).toMatchObject({ status: 409 });

  // With no active token nothing provisions the teams any more: they are the admins' to change.
  await revokeToken(scimTokenId);
  expect(data(await ada.mutate('settings.teams.rename', { ...acme, team_id: groupId, name: 'After Okta' }))).toMatchObject({ name: 'After Okta', provisioned_by_identity_provider: false });
  expect(data(await ada.mutate('settings.teams.delete', { ...acme, team_id: handMade }))).toEqual({ id: handMade, name: 'Hand made' });
});
