import request from 'supertest';
import { QueryTypes, Sequelize } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { parseCommand } from '../../scripts/orgs';
import { UsageError } from '../../scripts/cli';
import { publicBase } from '../../src/config';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(240_000);

/**
 * `npm run orgs -- …` (docs/organizations.md) as an operator runs it, in a child process on the test app's database:
 * a company's own organization and first admin, who signs in with the link printed; renaming; and deleting one with
 * every row it owns, nothing of another's. Refusals exit 1 with the service's message, usage errors 2.
 */

let t: TestApp;
let orgs: (...args: string[]) => Promise<CliRun>;
let sequelize: Sequelize;
beforeAll(async () => {
  t = await startTestApp();
  orgs = appCli(t, 'orgs');
  sequelize = t.runtime.sequelize;
});
afterAll(async () => t.close());

const select = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) => sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });

async function json<T>(...args: string[]): Promise<T> {
  const run = await orgs(...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as T;
}

interface Created {
  id: string;
  name: string;
  admin: { id: string; email: string };
  sign_in_link: string | null;
}

describe('an organization of its own', () => {
  test('create makes the organization and its admin; the link signs the admin in to its settings, once', async () => {
    const created = await json<Created>('create', '--name', 'Initrode', '--admin', 'Peter@Initrode.test');
    expect(created).toEqual({ id: expect.stringMatching(/^org_[0-9a-z]{14}$/), name: 'Initrode', admin: { id: expect.stringMatching(/^usr_/), email: 'peter@initrode.test' }, sign_in_link: expect.any(String) });
    expect(created.sign_in_link!.startsWith(`${publicBase(t.config)}/auth/link#login_`)).toBe(true);

    const origin = new URL(publicBase(t.config)).origin;
    const token = created.sign_in_link!.split('#')[1];
    const signIn = await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('platform_session='))!.split(';')[0];
    const session = await request(t.runtime.app).get('/trpc/settings.session').set('Cookie', cookie);
    expect(session.status).toBe(200);
    expect(JSON.stringify(session.body)).toContain(created.id);
    expect((await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token })).status).toBe(400);

    // The new admin's token sees the new organization, with them as its one member, and nothing of Acme's.
    const bearer = await t.token({ user: created.admin.id });
    const listed = await t.get('/v1/organizations', bearer);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([created.id]);
    const members = await t.get(`/v1/organizations/${created.id}/members`, bearer);
    expect(members.body.data).toEqual([expect.objectContaining({ id: created.admin.id, email: 'peter@initrode.test', role: 'admin' })]);
    expect((await t.get(`/v1/organizations/${DEMO.orgs.acme}`, bearer)).status).toBe(403);

    const audit = await select<{ action: string; actor_type: string }>("SELECT action, actor_type FROM audit_log WHERE organization_id = :id AND action LIKE 'organization.%'", { id: created.id });
    expect(audit).toEqual([{ action: 'organization.created', actor_type: 'operator' }]);
  });

  test('an admin who already belongs to another organization keeps that membership and gains this one', async () => {
    const created = await json<Created>('create', '--name', 'Ada Labs', '--admin', DEMO.emails.ada, '--admin-name', 'Ada');
    expect(created.admin).toEqual({ id: DEMO.users.ada, email: DEMO.emails.ada });
    const roles = await select<{ organization_id: string; role: string }>('SELECT organization_id, role FROM organization_memberships WHERE user_id = :u ORDER BY organization_id', { u: DEMO.users.ada });
    expect(roles).toEqual(expect.arrayContaining([{ organization_id: DEMO.orgs.acme, role: 'admin' }, { organization_id: created.id, role: 'admin' }]));
  });

  test('list shows each organization with its members and admins; rename renames, audited', async () => {
    const before = await json<{ id: string; name: string; members: number; admins: string[] }[]>('list');
    const acme = before.find((o) => o.id === DEMO.orgs.acme)!;
    expect(acme).toMatchObject({ name: 'Acme Corp', admins: expect.arrayContaining([DEMO.emails.ada]) });
    expect(acme.members).toBeGreaterThan(3);
    const table = await orgs('list');
    expect(table.stdout).toMatch(/ID +NAME +MEMBERS +ADMINS +CREATED/);

    const renamed = await json<{ id: string; name: string }>('rename', '--org', DEMO.orgs.globex, '--name', 'Globex Corporation');
    expect(renamed).toMatchObject({ id: DEMO.orgs.globex, name: 'Globex Corporation' });
    const bearer = await t.token({ user: DEMO.users.outsider });
    expect((await t.get(`/v1/organizations/${DEMO.orgs.globex}`, bearer)).body.data.name).toBe('Globex Corporation');
    const audit = await select<{ details: string }>("SELECT details FROM audit_log WHERE organization_id = :id AND action = 'organization.renamed'", { id: DEMO.orgs.globex });
    expect(audit.map((a) => JSON.parse(a.details))).toEqual([{ from: 'Globex', to: 'Globex Corporation' }]);
  });

  test('refusals say what to fix: a name in use (any case), an unknown organization, an unconfirmed deletion', async () => {
    const taken = await orgs('create', '--name', 'acme corp', '--admin', 'x@y.test');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`An organization named 'Acme Corp' exists already (${DEMO.orgs.acme})`);
    const unknown = await orgs('rename', '--org', 'org_nope', '--name', 'X');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('No organization org_nope') });
    const unconfirmed = await orgs('delete', '--org', DEMO.orgs.globex, '--confirm', DEMO.orgs.acme);
    expect(unconfirmed).toMatchObject({ code: 1, stderr: expect.stringContaining(`--confirm ${DEMO.orgs.globex}`) });
    expect(await select('SELECT id FROM organizations WHERE id = :id', { id: DEMO.orgs.globex })).toHaveLength(1);
  });

  test('usage errors', () => {
    const usage = (...argv: string[]) => () => parseCommand(argv);
    expect(usage()).toThrow(UsageError);
    expect(usage('create', '--name', 'X')).toThrow('create needs --admin');
    expect(usage('create', '--name', 'X', '--admin', 'not-an-email')).toThrow("--admin needs an e-mail address (got 'not-an-email')");
    expect(usage('create', '--name', ' ', '--admin', 'a@b.test')).toThrow('--name must not be empty');
    expect(usage('create', '--name', 'x'.repeat(201), '--admin', 'a@b.test')).toThrow('--name has at most 200 characters');
    expect(usage('delete', '--org', 'org_x')).toThrow('delete needs --confirm');
    expect(usage('rename', '--org', 'org_x')).toThrow('rename needs --name');
    expect(usage('wipe')).toThrow('unknown command "wipe"');
  });
});

/** Every table with its text columns: where an id of the organization's could still be. */
async function textColumns(): Promise<Map<string, string[]>> {
  const rows =
    sequelize.getDialect() === 'mysql'
      ? await select<{ t: string; c: string }>(
          "SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('varchar', 'char', 'text', 'mediumtext', 'longtext')",
        )
      : await select<{ t: string; c: string }>(
          "SELECT m.name AS t, c.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND (c.type LIKE '%CHAR%' OR c.type LIKE '%TEXT%')",
        );
  const byTable = new Map<string, string[]>();
  for (const { t: table, c } of rows) byTable.set(table, [...(byTable.get(table) ?? []), c]);
  return byTable;
}

/** The ids of every row the organization owns: its own, and those of each row of a table that names it. */
async function idsOwnedBy(organizationId: string, columns: Map<string, string[]>): Promise<string[]> {
  const ids = new Set([organizationId]);
  for (const [table, names] of columns) {
    if (!names.includes('organization_id') || !names.includes('id') || table === 'organizations') continue;
    for (const row of await select<{ id: string }>(`SELECT id FROM \`${table}\` WHERE organization_id = :id`, { id: organizationId })) ids.add(row.id);
  }
  // The people it has to itself, and their tokens.
  const own = await select<{ user_id: string }>(
    'SELECT user_id FROM organization_memberships m WHERE organization_id = :id AND NOT EXISTS (SELECT 1 FROM organization_memberships o WHERE o.user_id = m.user_id AND o.organization_id <> :id)',
    { id: organizationId },
  );
  for (const { user_id } of own) ids.add(user_id);
  const users = own.map((o) => o.user_id);
  if (users.length) for (const row of await select<{ id: string }>('SELECT id FROM api_tokens WHERE user_id IN (:users)', { users })) ids.add(row.id);
  return [...ids];
}

/** Rows anywhere holding one of the ids, by table; the deletion's own audit entry left out. */
async function rowsNaming(ids: string[], columns: Map<string, string[]>): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const [table, names] of columns) {
    for (let i = 0; i < ids.length; i += 400) {
      const chunk = ids.slice(i, i + 400);
      const keep = table === 'audit_log' ? " AND action <> 'organization.deleted'" : '';
      const [{ n }] = await select<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE (${names.map((c) => `\`${c}\` IN (:chunk)`).join(' OR ')})${keep}`, { chunk });
      if (Number(n) > 0) found[table] = (found[table] ?? 0) + Number(n);
    }
  }
  return found;
}

/** Rows of each table that names an organization, for one organization. */
async function rowsOf(organizationId: string, columns: Map<string, string[]>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, names] of columns) {
    if (!names.includes('organization_id')) continue;
    const [{ n }] = await select<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE organization_id = :id`, { id: organizationId });
    counts[table] = Number(n);
  }
  return counts;
}

describe('deleting an organization', () => {
  test('removes every row it owns, in every table, and nothing of another organization; the deletion stays audited', async () => {
    const columns = await textColumns();
    const owned = await idsOwnedBy(DEMO.orgs.acme, columns);
    expect(owned.length).toBeGreaterThan(100);
    expect(Object.keys(await rowsNaming(owned, columns)).length).toBeGreaterThan(25);
    const outsider = await t.token({ user: DEMO.users.outsider });
    const acmeToken = await t.token({ user: DEMO.users.grace });
    const globexBefore = await rowsOf(DEMO.orgs.globex, columns);

    const deleted = await json<{ id: string; name: string; members: number; users_removed: number }>('delete', '--org', DEMO.orgs.acme, '--confirm', DEMO.orgs.acme);
    expect(deleted).toMatchObject({ id: DEMO.orgs.acme, name: 'Acme Corp' });
    expect(deleted.members).toBeGreaterThan(3);

    expect(await rowsNaming(owned, columns)).toEqual({});
    expect(await rowsOf(DEMO.orgs.globex, columns)).toEqual(globexBefore);
    const [entry] = await select<{ organization_id: string | null; target_type: string; target_id: string; actor_type: string; details: string }>(
      "SELECT organization_id, target_type, target_id, actor_type, details FROM audit_log WHERE action = 'organization.deleted'",
    );
    expect(entry).toMatchObject({ organization_id: null, target_type: 'organization', target_id: DEMO.orgs.acme, actor_type: 'operator' });
    expect(JSON.parse(entry.details)).toMatchObject({ name: 'Acme Corp', members: deleted.members });

    // The service answers at once without it: Globex is as it was, Acme's people and tokens are gone.
    expect((await t.get(`/v1/organizations/${DEMO.orgs.globex}/members`, outsider)).status).toBe(200);
    expect((await t.get('/v1/users', acmeToken)).status).toBe(401);
    const again = await orgs('delete', '--org', DEMO.orgs.acme, '--confirm', DEMO.orgs.acme);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`No organization ${DEMO.orgs.acme}`) });
  });
});
