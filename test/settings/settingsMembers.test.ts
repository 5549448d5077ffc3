import request from 'supertest';
import { OutboxEvent } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { publicBase } from '../../src/config';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';

/**
 * `settings.members.*` (docs/settings.md#members): an organization's admin adds its people by hand, changes their role
 * and removes them, and they are the organization's members everywhere (/v1 with an API token, a sign-in link), each
 * change audited as theirs with the events SCIM's changes send. Refused: other roles (403), an API token or no
 * session (401), a foreign Origin (403), another organization's member (404), a member already there, the last
 * active admin, and every change while the identity provider provisions the members (409).
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
const globex = { organization_id: DEMO.orgs.globex };
const membersOnV1 = async (organizationId: string) =>
  (await t.get(`/v1/organizations/${organizationId}/members?per_page=100`, adaToken)).body.data as { id: string; email: string; name: string; role: string }[];
const eventsOf = async (userId: string) =>
  (await OutboxEvent.findAll({ where: { organization_id: DEMO.orgs.acme }, order: [['seq', 'ASC']] })).filter((e) => JSON.parse(e.data).id === userId).map((e) => e.type);
const auditOf = async (userId: string) => {
  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, adaToken);
  return (log.body.data as { target_type: string; target_id: string; action: string; actor_user_id: string; details: Record<string, unknown> }[]).filter((e) => e.target_id === userId);
};

test('an admin adds a member, who is on /v1 and signs in with a link; changes their role and removes them: audited as theirs, with the members’ events', async () => {
  const added = data(await ada.mutate('settings.members.add', { ...acme, email: ' Nora.Hand@Acme.test ', name: ' Nora Hand ', role: 'manager' }));
  expect(added).toEqual({ user_id: expect.stringMatching(/^usr_/), name: 'Nora Hand', email: 'nora.hand@acme.test', role: 'manager', status: 'active', created_at: expect.any(String) });
  const id = added.user_id;
  expect((await membersOnV1(DEMO.orgs.acme)).find((m) => m.id === id)).toMatchObject({ email: 'nora.hand@acme.test', name: 'Nora Hand', role: 'manager' });
  const listed = data(await ada.query('settings.members.list', acme));
  expect(listed).toMatchObject({ provisioned_by_identity_provider: false, total: listed.members.length });
  expect(listed.members.find((m: { user_id: string }) => m.user_id === id)).toEqual(added);

  // The new member signs in with a one-time link, and reads their organization as its manager.
  const nora = await signInWithLink(t.runtime.app, id, origin);
  const session = data(await nora.query('settings.session'));
  expect(JSON.stringify(session)).toContain(DEMO.orgs.acme);
  expect(errorOf(await nora.query('settings.members.list', acme))).toMatchObject({ status: 403 });

  expect(data(await ada.mutate('settings.members.setRole', { ...acme, user_id: id, role: 'admin' }))).toMatchObject({ user_id: id, role: 'admin' });
  expect((await membersOnV1(DEMO.orgs.acme)).find((m) => m.id === id)?.role).toBe('admin');
  // Now an admin herself: the access change bites on her session's next call.
  expect(data(await nora.query('settings.members.list', acme)).members.length).toBeGreaterThan(3);
  // The same role again changes nothing and audits nothing.
  expect(data(await ada.mutate('settings.members.setRole', { ...acme, user_id: id, role: 'admin' }))).toMatchObject({ role: 'admin' });

  expect(data(await ada.mutate('settings.members.remove', { ...acme, user_id: id }))).toEqual({ user_id: id, email: 'nora.hand@acme.test' });
  expect((await membersOnV1(DEMO.orgs.acme)).map((m) => m.id)).not.toContain(id);
  // Removed from her one organization, her session reaches nothing any more.
  expect(errorOf(await nora.query('settings.members.list', acme))).toMatchObject({ status: 401 });

  expect(await eventsOf(id)).toEqual(['user.created', 'user.updated', 'membership.removed']);
  const audit = await auditOf(id);
  expect(audit.map((e) => [e.action, e.target_type, e.details])).toEqual([
    ['member.removed', 'user', { email: 'nora.hand@acme.test', role: 'admin' }],
    ['member.role_set', 'user', { email: 'nora.hand@acme.test', from: 'manager', to: 'admin' }],
    ['member.added', 'user', { email: 'nora.hand@acme.test', name: 'Nora Hand', role: 'manager' }],
  ]);
  for (const e of audit) expect(e).toMatchObject({ actor_user_id: DEMO.users.ada });
});

test('someone of another organization joins as the same user, keeping their profile there; removing them here leaves them there', async () => {
  const added = data(await ada.mutate('settings.members.add', { ...acme, email: DEMO.emails.outsider, name: 'Another Name', role: 'collaborator' }));
  expect(added).toMatchObject({ user_id: DEMO.users.outsider, email: DEMO.emails.outsider, role: 'collaborator' });
  expect(added.name).not.toBe('Another Name');
  await ada.mutate('settings.members.remove', { ...acme, user_id: DEMO.users.outsider });
  const outsiderToken = await t.token({ user: DEMO.users.outsider });
  expect((await t.get(`/v1/organizations/${DEMO.orgs.globex}/members?per_page=100`, outsiderToken)).body.data.map((m: { id: string }) => m.id)).toContain(DEMO.users.outsider);
});

test('mistakes are refused with what to fix: a member already there (by any case), a bad e-mail, name or role, an unknown member', async () => {
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'LINUS@demo.test', name: 'Linus again', role: 'collaborator' }))).toEqual({
    status: 409,
    code: 'CONFLICT',
    message: 'linus@demo.test is already a member of this organization',
  });
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'not-an-address', name: 'X', role: 'collaborator' }))).toMatchObject({ status: 400, message: expect.stringContaining('email must be an e-mail address') });
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'x@acme.test', name: '  ', role: 'collaborator' }))).toMatchObject({ status: 400, message: expect.stringContaining('name must not be empty') });
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'x@acme.test', name: 'x'.repeat(201), role: 'collaborator' }))).toMatchObject({ status: 400, message: expect.stringContaining('at most 200') });
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'x@acme.test', name: 'X', role: 'owner' }))).toMatchObject({ status: 400, message: expect.stringContaining('role must be one of admin, manager, collaborator') });
  expect(errorOf(await ada.mutate('settings.members.setRole', { ...acme, user_id: 'usr_nobody', role: 'manager' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await ada.mutate('settings.members.remove', { ...acme, user_id: 'usr_nobody' }))).toMatchObject({ status: 404 });
  expect((await membersOnV1(DEMO.orgs.acme)).map((m) => m.email)).not.toContain('x@acme.test');
});

test('an organization keeps an active admin: the last one is neither demoted nor removed, themselves included', async () => {
  const lastAdmin = (who: string) => ({
    status: 409,
    code: 'CONFLICT',
    message: expect.stringContaining(`${who} is the organization's last active admin, and an organization keeps at least one`),
  });
  expect(errorOf(await ada.mutate('settings.members.setRole', { ...acme, user_id: DEMO.users.ada, role: 'manager' }))).toEqual(lastAdmin(DEMO.emails.ada));
  expect(errorOf(await ada.mutate('settings.members.remove', { ...acme, user_id: DEMO.users.ada }))).toEqual(lastAdmin(DEMO.emails.ada));
  const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
  expect(errorOf(await margaret.mutate('settings.members.remove', { ...globex, user_id: DEMO.users.margaret }))).toEqual(lastAdmin(DEMO.emails.margaret));

  // With a second admin, either may go; the second is then the last.
  const second = data(await ada.mutate('settings.members.add', { ...acme, email: 'second.admin@acme.test', name: 'Second Admin', role: 'admin' }));
  expect(data(await ada.mutate('settings.members.setRole', { ...acme, user_id: second.user_id, role: 'collaborator' }))).toMatchObject({ role: 'collaborator' });
  expect(data(await ada.mutate('settings.members.remove', { ...acme, user_id: second.user_id }))).toMatchObject({ user_id: second.user_id });
  expect((await membersOnV1(DEMO.orgs.acme)).find((m) => m.id === DEMO.users.ada)?.role).toBe('admin');
});

test('others are refused: a manager, a collaborator, an API token, no session, a foreign Origin; another organization’s member is not found', async () => {
  const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
  const linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
  for (const who of [grace, linus]) {
    expect(errorOf(await who.query('settings.members.list', acme))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(await who.mutate('settings.members.add', { ...acme, email: 'mine@acme.test', name: 'Mine', role: 'admin' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(await who.mutate('settings.members.setRole', { ...acme, user_id: DEMO.users.linus, role: 'admin' }))).toMatchObject({ status: 403 });
    expect(errorOf(await who.mutate('settings.members.remove', { ...acme, user_id: DEMO.users.ada }))).toMatchObject({ status: 403 });
  }
  const change = { ...acme, user_id: DEMO.users.linus, role: 'admin' };
  expect(errorOf(await ada.mutate('settings.members.setRole', change, { Origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  expect(errorOf(await ada.mutate('settings.members.setRole', change, { Authorization: `Bearer ${adaToken}` }))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  const tokenOnly = await request(t.runtime.app).get(`/trpc/settings.members.list?input=${encodeURIComponent(JSON.stringify(acme))}`).set('Authorization', `Bearer ${adaToken}`);
  expect(errorOf(tokenOnly)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  const anonymous = await request(t.runtime.app).post('/trpc/settings.members.add').set({ Origin: origin, 'Content-Type': 'application/json' }).send(JSON.stringify({ ...acme, email: 'anon@acme.test', name: 'Anon', role: 'admin' }));
  expect(errorOf(anonymous)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

  // Margaret administers Globex: Acme's members are not found through Globex, and Acme is not hers to change.
  const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
  expect(errorOf(await margaret.mutate('settings.members.setRole', { ...globex, user_id: DEMO.users.linus, role: 'admin' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.mutate('settings.members.remove', { ...globex, user_id: DEMO.users.ada }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.mutate('settings.members.remove', { ...acme, user_id: DEMO.users.linus }))).toMatchObject({ status: 403 });
  const roles = await membersOnV1(DEMO.orgs.acme);
  expect(roles.find((m) => m.id === DEMO.users.linus)?.role).toBe('collaborator');
  expect(roles.map((m) => m.email)).not.toContain('mine@acme.test');
});

test('while the identity provider has an active SCIM token it owns the members: changes by hand are refused, the list says so', async () => {
  const { id: scimTokenId } = await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' });
  expect(data(await ada.query('settings.members.list', acme))).toMatchObject({ provisioned_by_identity_provider: true });
  const owned = {
    status: 409,
    code: 'CONFLICT',
    message: 'The members of this organization are provisioned by your identity provider (SCIM): add, change and remove them there, where a change made here would be changed back',
  };
  expect(errorOf(await ada.mutate('settings.members.add', { ...acme, email: 'by.hand@acme.test', name: 'By Hand', role: 'collaborator' }))).toEqual(owned);
  expect(errorOf(await ada.mutate('settings.members.setRole', { ...acme, user_id: DEMO.users.linus, role: 'manager' }))).toEqual(owned);
  expect(errorOf(await ada.mutate('settings.members.remove', { ...acme, user_id: DEMO.users.linus }))).toEqual(owned);

  await revokeToken(scimTokenId);
  expect(data(await ada.query('settings.members.list', acme))).toMatchObject({ provisioned_by_identity_provider: false });
  expect(data(await ada.mutate('settings.members.add', { ...acme, email: 'by.hand@acme.test', name: 'By Hand', role: 'collaborator' }))).toMatchObject({ role: 'collaborator' });
});
