import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditEntry, OrganizationMembership } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { parseCommand } from '../../scripts/orgs';
import { UsageError } from '../../scripts/cli';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { OrganizationWriter } from '../../src/services/organizations/organizations';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(300_000);

/**
 * `npm run orgs -- add-members` (docs/organizations.md): a company with many people and no identity provider adds
 * them from a CSV file; the good lines in one change, each audited, each bad line reported by its number and the exit
 * code 1; a dry run changes nothing; refused whole while a SCIM token is active, for an unknown organization or a
 * file that is not a members file.
 */

let t: TestApp;
let orgs: (...args: string[]) => Promise<CliRun>;
let org: { id: string; admin: { id: string; email: string } };
beforeAll(async () => {
  t = await startTestApp();
  orgs = appCli(t, 'orgs');
  org = await new OrganizationWriter(new ChangeRunner(t.runtime.sequelize)).create({ name: `Initech ${process.pid}-${Date.now()}`, adminEmail: 'bill@initech.test' });
});
afterAll(async () => t?.close());

function csvFile(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'add-members-')), 'members.csv');
  fs.writeFileSync(file, text);
  return file;
}

const memberCount = () => OrganizationMembership.count({ where: { organization_id: org.id } });
const ROLES = ['collaborator', 'manager', 'admin', ''];

/** 300 people on lines 2 to 301, then the bad lines 302 to 307 (and a blank line, skipped). */
function staffFile(): string {
  const people = Array.from({ length: 300 }, (_, i) => `person${i}@initech.test,"Person ${i}, Initech",${ROLES[i % ROLES.length]}`);
  const bad = [
    'not-an-address,Nobody,collaborator',
    'peter@initech.test,Peter,boss',
    'PERSON7@initech.test,Person Seven Again,manager',
    'bill@initech.test,Bill Again,admin',
    'only@initech.test,Two columns',
    '',
    `${DEMO.emails.linus},Linus Elsewhere,manager`,
  ];
  return ['email,name,role', ...people, ...bad].join('\r\n');
}

test('a dry run reads and checks the file and changes nothing; it reports every refused line by number', async () => {
  const before = await memberCount();
  const run = await orgs('add-members', '--org', org.id, '--csv', csvFile(staffFile()), '--dry-run');
  expect(run.code).toBe(1);
  expect(run.stdout).toContain(`Dry run, nothing changed: would add 301 members to organization ${org.id}:`);
  expect(run.stdout).toContain('  line 2: person0@initech.test (collaborator)\n');
  expect(run.stdout).toContain(
    '5 lines refused:\n' +
      '  line 302: malformed line: "not-an-address" is not an e-mail address\n' +
      '  line 303: malformed line: unknown role "boss": give admin, manager, collaborator, or nothing for collaborator\n' +
      '  line 304: duplicate e-mail: person7@initech.test is on line 9 already\n' +
      `  line 305: bill@initech.test is already a member of this organization (${org.admin.id})\n` +
      '  line 306: malformed line: 2 columns, expected 3 (email,name,role)\n',
  );
  expect(await memberCount()).toBe(before);
});

test('the good lines are added in one run, each audited; the people are members on /v1 with their roles; the exit code says lines were refused', async () => {
  const run = await orgs('add-members', '--org', org.id, '--csv', csvFile(staffFile()), '--json');
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report.dry_run).toBe(false);
  expect(report.added).toHaveLength(301);
  expect(report.added[0]).toEqual({ line: 2, user_id: expect.stringMatching(/^usr_/), email: 'person0@initech.test', role: 'collaborator' });
  expect(report.rejected.map((r: { line: number }) => r.line)).toEqual([302, 303, 304, 305, 306]);
  // Linus of Acme joins as the same user, keeping his profile.
  expect(report.added.find((l: { email: string }) => l.email === DEMO.emails.linus)).toMatchObject({ line: 308, user_id: DEMO.users.linus, role: 'manager' });

  const token = await t.token({ user: org.admin.id });
  const members = await t.get(`/v1/organizations/${org.id}/members?per_page=100&sort=email`, token);
  expect(members.body.meta.total).toBe(302);
  const byEmail = new Map((await allMembers(token)).map((m) => [m.email, m]));
  expect(byEmail.get('person1@initech.test')).toMatchObject({ name: 'Person 1, Initech', role: 'manager' });
  expect(byEmail.get('person2@initech.test')?.role).toBe('admin');
  expect(byEmail.get('person3@initech.test')?.role).toBe('collaborator');
  expect(byEmail.get(DEMO.emails.linus)?.name).not.toBe('Linus Elsewhere');
  expect(await AuditEntry.count({ where: { organization_id: org.id, action: 'member.added', actor_type: 'operator' } })).toBe(301);

  // Run again: everyone is a member already, nothing is added twice.
  const again = await orgs('add-members', '--org', org.id, '--csv', csvFile('email,name\nperson0@initech.test,Person 0\n'));
  expect(again).toMatchObject({ code: 1, stdout: expect.stringContaining('line 2: person0@initech.test is already a member of this organization') });
  expect(await memberCount()).toBe(302);
});

test('the role column may be left out: everyone is a collaborator; the text report says how many were added', async () => {
  const run = await orgs('add-members', '--org', org.id, '--csv', csvFile('Email,Name\n\nsam@initech.test,Sam\n'));
  expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining(`Added 1 member to organization ${org.id}.\n`) });
  expect(await OrganizationMembership.findOne({ where: { organization_id: org.id, user_email: 'sam@initech.test' } })).toMatchObject({ role: 'collaborator', status: 'active' });
});

test('refused whole: while a SCIM token is active, an unknown organization, a file that is no members file', async () => {
  const { id: scimTokenId } = await createScimToken({ organizationId: org.id, name: 'Okta' });
  const owned = await orgs('add-members', '--org', org.id, '--csv', csvFile('email,name\nlate@initech.test,Late\n'));
  expect(owned).toMatchObject({ code: 1, stderr: expect.stringContaining('provisioned by your identity provider (SCIM)') });
  await revokeToken(scimTokenId);
  expect(await OrganizationMembership.count({ where: { organization_id: org.id, user_email: 'late@initech.test' } })).toBe(0);

  expect(await orgs('add-members', '--org', 'org_nope', '--csv', csvFile('email,name\nx@y.test,X\n'))).toMatchObject({ code: 1, stderr: expect.stringContaining('No organization org_nope') });
  const header = await orgs('add-members', '--org', org.id, '--csv', csvFile('account,email\nx,x@y.test\n'));
  expect(header).toMatchObject({ code: 1, stderr: expect.stringContaining('The file must start with the header line "email,name,role"') });
  expect(await orgs('add-members', '--org', org.id, '--csv', '/nonexistent/members.csv')).toMatchObject({ code: 1, stderr: expect.stringContaining('Cannot read --csv') });
});

test('usage errors', () => {
  const usage = (...argv: string[]) => () => parseCommand(argv);
  expect(usage('add-members', '--org', 'org_x')).toThrow(UsageError);
  expect(usage('add-members', '--org', 'org_x')).toThrow('add-members needs --csv');
  expect(usage('add-members', '--csv', 'f.csv')).toThrow('add-members needs --org');
  expect(usage('add-members', '--org', 'org_x', '--csv', 'f.csv', '--role', 'admin')).toThrow(UsageError);
  expect(parseCommand(['add-members', '--org', 'org_x', '--csv', 'f.csv', '--dry-run'])).toEqual({ kind: 'add-members', org: 'org_x', csv: 'f.csv', dryRun: true, json: false });
});

async function allMembers(token: string): Promise<{ email: string; name: string; role: string }[]> {
  const found: { email: string; name: string; role: string }[] = [];
  for (let page = 1; ; page++) {
    const res = await t.get(`/v1/organizations/${org.id}/members?per_page=100&page=${page}`, token);
    found.push(...res.body.data);
    if (res.body.data.length < 100) return found;
  }
}
