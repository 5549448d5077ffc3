import request from 'supertest';
import { initModels, OutboxEvent, OrganizationMembership, TeamMembership, User } from '../../db/models';
import { createRuntime } from '../../src/runtime';
import { createLogger } from '../../src/logger';
import { DomainError } from '../../src/errors';
import type { MemberInput } from '../../src/services/people/members';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { unique } from '../support/common';

/**
 * The write path every writing surface shares (docs/architecture.md#writers): one domain service per kind of change, one
 * transaction with its outbox events and data versions; reads exact at once, access changes on this instance
 * at once and on every instance within 5 s. SCIM (and later ingest) are transports over these services.
 */

let a: TestApp;
let adaToken: string;
beforeAll(async () => {
  a = await startTestApp({ COUNT_CACHE_TTL_MS: '600000' });
  adaToken = await a.token();
});
afterAll(async () => a.close());

const members = () => a.runtime.writers.members;
const teams = () => a.runtime.writers.teams;
const input = (over: Partial<MemberInput> = {}): MemberInput => ({
  email: `new.${unique()}@example.com`,
  name: 'New Person',
  role: 'collaborator',
  active: true,
  externalId: null,
  title: null,
  ...over,
});

async function memberIds(organizationId: string, token = adaToken): Promise<{ ids: string[]; total: number }> {
  const res = await a.get(`/v1/organizations/${organizationId}/members?per_page=100&sort=created_at`, token);
  expect(res.status).toBe(200);
  return { ids: res.body.data.map((m: { id: string }) => m.id), total: res.body.meta.total };
}

/** Totals of a list the count cache holds: exact only if writes raise the versions. */
async function memberTotal(organizationId: string): Promise<number> {
  const res = await a.get(`/v1/organizations/${organizationId}/members?per_page=1`, adaToken);
  expect(res.status).toBe(200);
  return res.body.meta.total;
}

async function eventsSince(seq: number) {
  const rows = await OutboxEvent.findAll({ order: [['seq', 'ASC']] });
  return rows.filter((r) => Number(r.seq) > seq).map((r) => ({ type: r.type, organization_id: r.organization_id, data: JSON.parse(r.data) }));
}
const lastSeq = async () => Number((await OutboxEvent.max('seq')) ?? 0);

async function expectDomainError(promise: Promise<unknown>, kind: DomainError['kind'], message: RegExp) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).kind).toBe(kind);
  expect((err as DomainError).message).toMatch(message);
}

describe('members', () => {
  test('provisioning a new person creates the user and the membership, counted at once, with one event', async () => {
    const before = await memberTotal(DEMO.orgs.acme);
    const seq = await lastSeq();
    const { user, membership } = await members().provision(DEMO.orgs.acme, input({ email: 'Jo.Provisioned@Example.COM', name: 'Jo Provisioned', role: 'manager' }));
    expect(user.email).toBe('jo.provisioned@example.com');
    expect(membership.status).toBe('active');
    expect(await memberTotal(DEMO.orgs.acme)).toBe(before + 1);

    const res = await a.get(`/v1/organizations/${DEMO.orgs.acme}/members?sort=name&order=asc&per_page=100&created_at[gte]=2026-11-01`, adaToken);
    expect(res.body.data).toContainEqual(expect.objectContaining({ id: user.id, name: 'Jo Provisioned', email: 'jo.provisioned@example.com', role: 'manager' }));
    expect((await a.get(`/v1/users/${user.id}`, adaToken)).status).toBe(200);

    expect(await eventsSince(seq)).toEqual([
      { type: 'user.created', organization_id: DEMO.orgs.acme, data: expect.objectContaining({ id: user.id, email: 'jo.provisioned@example.com', role: 'manager' }) },
    ]);
  });

  test('the same e-mail twice in one organization is a conflict that writes nothing', async () => {
    const email = `twice.${unique()}@example.com`;
    await members().provision(DEMO.orgs.acme, input({ email }));
    const seq = await lastSeq();
    const before = await memberTotal(DEMO.orgs.acme);
    await expectDomainError(members().provision(DEMO.orgs.acme, input({ email: email.toUpperCase() })), 'conflict', /already exists/);
    expect(await eventsSince(seq)).toEqual([]);
    expect(await memberTotal(DEMO.orgs.acme)).toBe(before);
  });

  test('an externalId is unique within its organization only', async () => {
    const externalId = `okta-${unique()}`;
    await members().provision(DEMO.orgs.acme, input({ externalId }));
    await expectDomainError(members().provision(DEMO.orgs.acme, input({ externalId })), 'conflict', /externalId/);
    await members().provision(DEMO.orgs.globex, input({ externalId }));
  });

  test('a person who belongs to another organization keeps their profile; the new organization gets its membership', async () => {
    // hedy is a manager of Globex; Acme provisions her with another name.
    const seq = await lastSeq();
    const { user, membership } = await members().provision(DEMO.orgs.acme, input({ email: DEMO.emails.hedy, name: 'Somebody Else' }));
    expect(user.id).toBe(DEMO.users.hedy);
    expect((await User.findByPk(DEMO.users.hedy))!.name).not.toBe('Somebody Else');
    expect(membership.role).toBe('collaborator');
    expect((await memberIds(DEMO.orgs.acme)).ids).toContain(DEMO.users.hedy);
    expect((await eventsSince(seq)).map((e) => [e.type, e.organization_id])).toEqual([['user.created', DEMO.orgs.acme]]);

    // Acme may not rename her either, while she is in Globex too; it gets the stored profile back.
    const updated = await members().update(DEMO.orgs.acme, DEMO.users.hedy, input({ email: 'hedy.new@example.com', name: 'Renamed', role: 'admin' }));
    expect(updated.user.email).toBe(DEMO.emails.hedy);
    expect(updated.membership.role).toBe('admin');
    await members().remove(DEMO.orgs.acme, DEMO.users.hedy);
    expect((await OrganizationMembership.findOne({ where: { organization_id: DEMO.orgs.globex, user_id: DEMO.users.hedy } }))!.role).toBe('manager');
  });

  test('an organization that has a person to itself changes their profile, and member lists sort by the new name', async () => {
    const { user } = await members().provision(DEMO.orgs.acme, input({ name: 'Aaron Early' }));
    const seq = await lastSeq();
    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: 'Zz Renamed', title: 'Engineer' }));
    expect(await eventsSince(seq)).toEqual([
      { type: 'user.updated', organization_id: DEMO.orgs.acme, data: expect.objectContaining({ id: user.id, name: 'Zz Renamed' }) },
    ]);
    expect((await OrganizationMembership.findOne({ where: { organization_id: DEMO.orgs.acme, user_id: user.id } }))!.title).toBe('Engineer');
    expect((await User.findByPk(user.id))!.name).toBe('Zz Renamed');
    const res = await a.get(`/v1/organizations/${DEMO.orgs.acme}/members?sort=name&order=desc&per_page=1`, adaToken);
    expect(res.body.data[0]).toEqual(expect.objectContaining({ id: user.id, name: 'Zz Renamed' }));
  });

  test('changing the e-mail to one another user has is a conflict', async () => {
    const { user } = await members().provision(DEMO.orgs.acme, input());
    await expectDomainError(members().update(DEMO.orgs.acme, user.id, input({ email: DEMO.emails.grace })), 'conflict', /already has userName/);
  });

  test('suspending a member: gone from member lists, team lists and visibility, tokens lose the organization, history stays', async () => {
    // linus: Acme collaborator, member of team_platform, author of commits.
    const linusToken = await a.token({ user: DEMO.emails.linus });
    expect((await a.get(`/v1/organizations/${DEMO.orgs.acme}`, linusToken)).status).toBe(200);
    const commitsBefore = (await a.get(`/v1/commits?per_page=1`, adaToken)).body.meta.total;
    const before = await memberTotal(DEMO.orgs.acme);
    const seq = await lastSeq();

    const linus = (await User.findByPk(DEMO.users.linus))!;
    await members().update(DEMO.orgs.acme, DEMO.users.linus, input({ email: linus.email, name: linus.name, active: false }));

    expect(await memberTotal(DEMO.orgs.acme)).toBe(before - 1);
    expect((await memberIds(DEMO.orgs.acme)).ids).not.toContain(DEMO.users.linus);
    const team = await a.get(`/v1/teams/${DEMO.teams.platform}/members?per_page=100`, adaToken);
    expect(team.body.data.map((m: { id: string }) => m.id)).not.toContain(DEMO.users.linus);
    expect((await a.get(`/v1/users/${DEMO.users.linus}`, adaToken)).status).toBe(403);
    // On this instance at once (the change tells the authenticator), on others within 5 s (below).
    expect((await a.get(`/v1/organizations/${DEMO.orgs.acme}`, linusToken)).status).toBe(403);
    expect((await a.get(`/v1/commits?per_page=1`, adaToken)).body.meta.total).toBe(commitsBefore);
    expect((await TeamMembership.findOne({ where: { team_id: DEMO.teams.platform, user_id: DEMO.users.linus } }))!.status).toBe('suspended');
    expect((await eventsSince(seq)).map((e) => e.type)).toEqual(['membership.deactivated']);

    await members().update(DEMO.orgs.acme, DEMO.users.linus, input({ email: linus.email, name: linus.name, active: true }));
    expect(await memberTotal(DEMO.orgs.acme)).toBe(before);
    expect((await a.get(`/v1/organizations/${DEMO.orgs.acme}`, linusToken)).status).toBe(200);
    const back = await a.get(`/v1/teams/${DEMO.teams.platform}/members?per_page=100`, adaToken);
    expect(back.body.data.map((m: { id: string }) => m.id)).toContain(DEMO.users.linus);
    expect((await eventsSince(seq)).map((e) => e.type)).toEqual(['membership.deactivated', 'user.updated']);
  });

  test('a suspension is dated on the membership and its team memberships, kept through later updates, and cleared on return', async () => {
    const { user } = await members().provision(DEMO.orgs.acme, input());
    const team = await teams().create(DEMO.orgs.acme, { name: `Dated ${unique()}`, externalId: null }, [user.id]);
    const dates = async () => ({
      organization: (await OrganizationMembership.findOne({ where: { organization_id: DEMO.orgs.acme, user_id: user.id } }))!.suspended_at,
      team: (await TeamMembership.findOne({ where: { team_id: team.id, user_id: user.id } }))!.suspended_at,
    });
    expect(await dates()).toEqual({ organization: null, team: null });

    const before = Date.now();
    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: user.name, active: false }));
    const suspended = await dates();
    expect(suspended.organization!.getTime()).toBeGreaterThanOrEqual(before);
    expect(suspended.organization!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(suspended.team).toEqual(suspended.organization);

    // An identity provider sending the suspended member again (a new title) does not move the date.
    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: user.name, active: false, title: 'Later' }));
    expect(await dates()).toEqual(suspended);
    // A team the suspended member joins carries the same date, as it carries the state.
    const joined = await teams().create(DEMO.orgs.acme, { name: `Joined ${unique()}`, externalId: null }, [user.id]);
    expect((await TeamMembership.findOne({ where: { team_id: joined.id, user_id: user.id } }))!.suspended_at).toEqual(suspended.organization);

    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: user.name, active: true }));
    expect(await dates()).toEqual({ organization: null, team: null });
    expect((await TeamMembership.findOne({ where: { team_id: joined.id, user_id: user.id } }))!.suspended_at).toBeNull();
  });

  test('a member provisioned inactive is suspended from their provisioning', async () => {
    const { membership } = await members().provision(DEMO.orgs.acme, input({ active: false }));
    expect(membership.suspended_at).toEqual(membership.created_at);
  });

  test('removing a member ends the membership and the team memberships, not the user', async () => {
    const { user } = await members().provision(DEMO.orgs.acme, input());
    const team = await teams().create(DEMO.orgs.acme, { name: `Removal ${unique()}`, externalId: null }, [user.id]);
    const seq = await lastSeq();
    await members().remove(DEMO.orgs.acme, user.id);
    expect((await memberIds(DEMO.orgs.acme)).ids).not.toContain(user.id);
    expect((await a.get(`/v1/teams/${team.id}/members`, adaToken)).body.meta.total).toBe(0);
    expect(await User.findByPk(user.id)).not.toBeNull();
    expect((await eventsSince(seq)).map((e) => e.type)).toEqual(['membership.removed']);
    await expectDomainError(members().remove(DEMO.orgs.acme, user.id), 'not_found', /No member/);
  });

  test('concurrent provisionings: nearby e-mails all succeed, and one new e-mail in two organizations makes one user', async () => {
    const run = unique();
    const emails = Array.from({ length: 16 }, (_, i) => `race-${run}-${i}@example.com`);
    const created = await Promise.all(emails.map((email) => members().provision(DEMO.orgs.acme, input({ email }))));
    expect(new Set(created.map((m) => m.user.id)).size).toBe(16);

    const shared = `shared-${run}@example.com`;
    const [inAcme, inGlobex] = await Promise.all([
      members().provision(DEMO.orgs.acme, input({ email: shared })),
      members().provision(DEMO.orgs.globex, input({ email: shared })),
    ]);
    expect(inAcme.user.id).toBe(inGlobex.user.id);
    expect(await User.count({ where: { email: shared } })).toBe(1);
  });

  test('an organization cannot change a member of another organization', async () => {
    await expectDomainError(members().update(DEMO.orgs.globex, DEMO.users.ada, input()), 'not_found', /No member/);
    await expectDomainError(members().remove(DEMO.orgs.globex, DEMO.users.ada), 'not_found', /No member/);
  });
});

describe('teams', () => {
  test('create, rename, change members, delete: each visible on /v1 at once, one event each', async () => {
    const seq = await lastSeq();
    const team = await teams().create(DEMO.orgs.acme, { name: 'Provisioned', externalId: `grp-${unique()}` }, [DEMO.users.ada, DEMO.users.grace]);
    const list = async () => (await a.get(`/v1/teams/${team.id}/members?per_page=100&sort=name&order=asc`, adaToken)).body;
    expect((await list()).data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.ada, DEMO.users.grace]);
    expect((await list()).meta.total).toBe(2);

    await teams().update(DEMO.orgs.acme, team.id, { name: 'Renamed', externalId: team.external_id }, { add: [DEMO.users.linus], remove: [DEMO.users.ada] });
    expect((await list()).data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.grace, DEMO.users.linus]);
    expect((await a.get(`/v1/teams/${team.id}`, adaToken)).body.data.name).toBe('Renamed');

    await teams().update(DEMO.orgs.acme, team.id, { name: 'Renamed', externalId: team.external_id }, { set: [DEMO.users.barbara] });
    expect((await list()).data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.barbara]);

    await teams().delete(DEMO.orgs.acme, team.id);
    expect((await a.get(`/v1/teams/${team.id}`, adaToken)).status).toBe(404);
    expect((await eventsSince(seq)).map((e) => e.type)).toEqual(['team.created', 'team.updated', 'team.updated', 'team.deleted']);
  });

  test('an update that changes nothing writes nothing', async () => {
    const team = await teams().create(DEMO.orgs.acme, { name: 'Steady', externalId: null }, [DEMO.users.ada]);
    const seq = await lastSeq();
    await teams().update(DEMO.orgs.acme, team.id, { name: 'Steady', externalId: null }, { set: [DEMO.users.ada] });
    expect(await eventsSince(seq)).toEqual([]);
  });

  test('a stranger as member is refused and the whole change is undone', async () => {
    const seq = await lastSeq();
    const before = (await a.get(`/v1/organizations/${DEMO.orgs.acme}/teams?per_page=1`, adaToken)).body.meta.total;
    await expectDomainError(
      teams().create(DEMO.orgs.acme, { name: 'Half', externalId: null }, [DEMO.users.ada, DEMO.users.outsider]),
      'invalid',
      new RegExp(`Not members of this organization: ${DEMO.users.outsider}`),
    );
    expect((await a.get(`/v1/organizations/${DEMO.orgs.acme}/teams?per_page=1`, adaToken)).body.meta.total).toBe(before);
    expect(await eventsSince(seq)).toEqual([]);
  });

  test("another organization's team is not found", async () => {
    await expectDomainError(teams().update(DEMO.orgs.globex, DEMO.teams.platform, { name: 'x', externalId: null }), 'not_found', /No team/);
    await expectDomainError(teams().delete(DEMO.orgs.globex, DEMO.teams.platform), 'not_found', /No team/);
  });

  test('a suspended member joins a team suspended, and shows there once reactivated', async () => {
    const { user } = await members().provision(DEMO.orgs.acme, input({ active: false }));
    const team = await teams().create(DEMO.orgs.acme, { name: 'With suspended', externalId: null }, [user.id]);
    expect((await a.get(`/v1/teams/${team.id}/members`, adaToken)).body.meta.total).toBe(0);
    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: user.name, active: true }));
    expect((await a.get(`/v1/teams/${team.id}/members`, adaToken)).body.meta.total).toBe(1);
  });
});

test('two instances: a suspension through one is applied by the other within 5 s', async () => {
  const { user } = await members().provision(DEMO.orgs.acme, input());
  const token = await a.token({ user: user.email });
  const second = createRuntime(a.config, createLogger('silent'), { rateLimitKeyPrefix: `test:${unique()}` });
  try {
    const viaB = () => request(second.app).get(`/v1/organizations/${DEMO.orgs.acme}`).set('Authorization', `Bearer ${token}`);
    expect((await viaB()).status).toBe(200); // B caches the principal now
    initModels(a.runtime.sequelize);
    await members().update(DEMO.orgs.acme, user.id, input({ email: user.email, name: user.name, active: false }));
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 7_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await viaB()).status;
    }
    expect(status).toBe(403);
    // docs/api.md#tokens-limits-and-headers promises 5 s; every instance reads the access changes each second, so it takes about one.
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThanOrEqual(2_500);
    process.stdout.write(`suspension applied by the other instance after ${elapsed} ms\n`);
    // The member list B serves is exact at once: it keys its cached totals by the data versions.
    const res = await request(second.app).get(`/v1/organizations/${DEMO.orgs.acme}/members?per_page=1`).set('Authorization', `Bearer ${adaToken}`);
    expect(res.body.meta.total).toBe(await memberTotal(DEMO.orgs.acme));
  } finally {
    await second.close();
    initModels(a.runtime.sequelize);
  }
});
