import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditEntry, Commit, GitApp, OrganizationMembership, User, UserApp, UserGitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import type { CommitInput, RepositoryRef } from '../../src/services/git/activity';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(300_000);

/**
 * Members' accounts linked by hand (docs/trackers.md#accounts): `gitapps link-user`, `apps|gitapps link-users` with
 * a CSV file (good lines linked in one run, each bad one reported by its number, nothing across organizations, a dry
 * run changing nothing) and `apps|gitapps unlinked` (accounts with activity and no member, busiest first).
 */

let t: TestApp;
let apps: (...args: string[]) => Promise<CliRun>;
let gitapps: (...args: string[]) => Promise<CliRun>;
let adminToken: string;
beforeAll(async () => {
  t = await startTestApp();
  apps = appCli(t, 'apps');
  gitapps = appCli(t, 'gitapps');
  adminToken = await t.token();
});
afterAll(async () => t.close());

const ACME = DEMO.orgs.acme;

async function json(cli: (...args: string[]) => Promise<CliRun>, ...args: string[]) {
  const run = await cli(...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

function csvFile(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'link-users-')), 'accounts.csv');
  fs.writeFileSync(file, text);
  return file;
}

const repository: RepositoryRef = { providerId: null, name: 'linked', fullName: 'acme/linked', defaultBranch: 'main', isPrivate: false, createdAt: null };
let shas = 0;
const commitBy = (authorUsername: string | null, authorEmail: string | null, at = '2026-05-01T10:00:00Z'): CommitInput => ({
  sha: (++shas).toString(16).padStart(40, 'c'),
  message: 'Change',
  authorName: authorUsername ?? 'Someone',
  authorEmail,
  authorUsername,
  createdAt: new Date(at),
});

async function importCommits(gitAppId: string, commits: CommitInput[]) {
  await t.runtime.writers.gitActivity.importCommits((await GitApp.findByPk(gitAppId))!, repository, commits);
}

test('gitapps link-user links a member to a user name: shown on the member, audited, found by what arrives next', async () => {
  const gitApp = await json(gitapps, 'create', '--org', ACME, '--provider', 'github', '--name', 'GitHub (hand links)');
  // Pushed before the link: the author's e-mail is no member's, so the commit is no one's.
  await importCommits(gitApp.id, [commitBy('gh-grace', 'grace@home.example')]);
  expect((await json(gitapps, 'unlinked', '--git-app', gitApp.id)).accounts.map((a: { account: string }) => a.account)).toEqual(['gh-grace']);

  expect(await json(gitapps, 'link-user', '--git-app', gitApp.id, '--user', 'GRACE@demo.test', '--username', 'gh-grace')).toEqual({
    git_app_id: gitApp.id,
    user_id: DEMO.users.grace,
    username: 'gh-grace',
    created_at: expect.any(String),
  });
  const shown = await t.get(`/v1/users/${DEMO.users.grace}/git/apps`, adminToken);
  expect(shown.status).toBe(200);
  expect(shown.body.data).toContainEqual(expect.objectContaining({ id: gitApp.id, user_id: DEMO.users.grace, username: 'gh-grace' }));
  const audit = await AuditEntry.findAll({ where: { target_id: gitApp.id, action: 'git_app.user_linked' } });
  expect(audit.map((e) => [e.organization_id, e.actor_type, JSON.parse(e.details)])).toEqual([[ACME, 'operator', { user_id: DEMO.users.grace, username: 'gh-grace' }]]);

  // As a link a push taught: what arrives next under the user name is the member's; what was stored before stays as it was.
  await importCommits(gitApp.id, [commitBy('gh-grace', 'grace@elsewhere.example', '2026-05-02T10:00:00Z')]);
  const commits = await Commit.findAll({ where: { git_app_id: gitApp.id }, order: [['created_at', 'ASC']] });
  expect(commits.map((c) => c.author_id)).toEqual([null, DEMO.users.grace]);
  expect((await json(gitapps, 'unlinked', '--git-app', gitApp.id)).accounts).toEqual([]);

  // Another member cannot take the user name; an unknown member or git app is refused with what to fix.
  expect(await gitapps('link-user', '--git-app', gitApp.id, '--user', DEMO.users.linus, '--username', 'gh-grace')).toMatchObject({
    code: 1,
    stderr: `gitapps: User name gh-grace of git app ${gitApp.id} is already linked to ${DEMO.users.grace}\n`,
  });
  expect(await gitapps('link-user', '--git-app', gitApp.id, '--user', DEMO.emails.outsider, '--username', 'olive')).toMatchObject({
    code: 1,
    stderr: `gitapps: No member ${DEMO.emails.outsider} in organization ${ACME}\n`,
  });
  expect(await gitapps('link-user', '--git-app', 'gapp_nope', '--user', DEMO.users.ada, '--username', 'x')).toMatchObject({ code: 1, stderr: 'gitapps: No git app gapp_nope (see npm run gitapps -- list)\n' });
  expect(await gitapps('link-user', '--git-app', gitApp.id, '--user', DEMO.users.ada)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^gitapps: link-user needs --username/) });
});

test('gitapps link-users links 5,000 lines in one run, reports each bad line by number, links nothing across organizations; a dry run changes nothing', async () => {
  const gitApp = await json(gitapps, 'create', '--org', ACME, '--provider', 'github', '--name', 'GitHub (bulk links)');
  const created = new Date('2026-01-01T00:00:00Z');
  const people = Array.from({ length: 4_996 }, (_, i) => ({ id: `usr_bulk${i}`, name: `Bulk ${i}`, email: `bulk${i}@acme.test` }));
  await User.bulkCreate(people.map((p) => ({ ...p, is_active: true, created_at: created })));
  await OrganizationMembership.bulkCreate(
    people.map((p) => ({ organization_id: ACME, user_id: p.id, role: 'collaborator' as const, created_at: created, user_name: p.name, user_email: p.email, user_created_at: created })),
  );

  // Line numbers count the header: the account on line n + 2 is people[n]'s, but for the bad lines.
  const lines = people.map((p, i) => `login-${i},${p.email}`);
  lines.splice(100, 0, 'login-unknown,nobody@acme.test');
  lines.splice(2_000, 0, `login-7,${DEMO.emails.grace}`);
  lines.splice(3_000, 0, `olive-acme,${DEMO.emails.outsider}`);
  lines.splice(4_000, 0, 'login-x,extra@acme.test,surplus');
  lines.splice(4_500, 0, `"login,quoted",${DEMO.emails.barbara}`);
  expect(lines.length).toBe(5_001);
  const file = csvFile(`account,email\r\n${lines.join('\r\n')}\r\n`);
  const rejected = [
    { line: 102, reason: `unknown e-mail: no member of organization ${ACME} has nobody@acme.test` },
    { line: 2_002, reason: 'duplicate account: login-7 is on line 9 already' },
    { line: 3_002, reason: `${DEMO.emails.outsider} is not a member of organization ${ACME}` },
    { line: 4_002, reason: 'malformed line: 3 columns, expected 2 (account,email)' },
  ];

  const dry = await gitapps('link-users', '--git-app', gitApp.id, '--csv', file, '--dry-run', '--json');
  expect(dry).toMatchObject({ code: 1, stderr: '' });
  const planned = JSON.parse(dry.stdout);
  expect(planned).toMatchObject({ dry_run: true, already_linked: [], rejected });
  expect(planned.linked).toHaveLength(4_997);
  expect(await UserGitApp.count({ where: { git_app_id: gitApp.id } })).toBe(0);
  expect(await AuditEntry.count({ where: { target_id: gitApp.id, action: 'git_app.user_linked' } })).toBe(0);

  const started = Date.now();
  const run = await gitapps('link-users', '--git-app', gitApp.id, '--csv', file, '--json');
  const seconds = (Date.now() - started) / 1000;
  expect(run).toMatchObject({ code: 1, stderr: '' });
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({ dry_run: false, already_linked: [], rejected });
  expect(report.linked).toEqual(planned.linked);
  expect(report.linked[0]).toEqual({ line: 2, account: 'login-0', user_id: 'usr_bulk0', email: 'bulk0@acme.test' });
  expect(report.linked).toContainEqual({ line: 4_502, account: 'login,quoted', user_id: DEMO.users.barbara, email: DEMO.emails.barbara });
  // One process, a bounded number of statements: seconds, most of them the process starting.
  expect(seconds).toBeLessThan(60);

  const links = await UserGitApp.findAll({ where: { git_app_id: gitApp.id } });
  expect(links).toHaveLength(4_997);
  expect(links.find((l) => l.user_id === 'usr_bulk4321')?.username).toBe('login-4321');
  expect(links.some((l) => l.user_id === DEMO.users.outsider || l.username === 'olive-acme')).toBe(false);
  expect(await UserGitApp.count({ where: { user_id: DEMO.users.outsider } })).toBe(1);
  expect(await AuditEntry.count({ where: { target_id: gitApp.id, action: 'git_app.user_linked', organization_id: ACME } })).toBe(4_997);

  // Again: every good line is linked already, the bad ones are bad still.
  const again = await gitapps('link-users', '--git-app', gitApp.id, '--csv', file);
  expect(again.code).toBe(1);
  expect(again.stdout).toContain(`Linked 0 accounts of git app ${gitApp.id} (4997 already linked).\n4 lines refused:\n  line 102: unknown e-mail`);
});

test('apps link-users: quoted fields, an account another member holds, a member linked already, malformed lines; exit 0 when all are good', async () => {
  const slack = await json(apps, 'create', '--org', ACME, '--provider', 'slack', '--name', 'Slack (bulk links)');
  await json(apps, 'link-user', '--app', slack.id, '--user', DEMO.emails.ada, '--external-id', 'UADA');
  await json(apps, 'link-user', '--app', slack.id, '--user', DEMO.emails.grace, '--external-id', 'UGRACE');
  const file = csvFile(
    [
      'Account,Email',
      `UADA,${DEMO.emails.ada}`,
      `UGRACE,${DEMO.emails.barbara}`,
      `UOTHER,${DEMO.emails.grace}`,
      `"ULINUS",${DEMO.emails.linus}`,
      '',
      ',nobody@acme.test',
      'UBAD,not-an-address',
      '"UOPEN,x@acme.test',
      `UADA,${DEMO.emails.margaret}`,
    ].join('\n'),
  );
  const run = await apps('link-users', '--app', slack.id, '--csv', file);
  expect(run.code).toBe(1);
  expect(run.stdout.replace(/^Database: .*\n/, '')).toBe(
    `Linked 1 account of app ${slack.id} (1 already linked).\n` +
      '6 lines refused:\n' +
      `  line 3: account UGRACE is already linked to another member (${DEMO.users.grace})\n` +
      `  line 4: ${DEMO.emails.grace} is already linked to account UGRACE on this app (link-user replaces it)\n` +
      '  line 7: malformed line: the account is empty\n' +
      '  line 8: malformed line: "not-an-address" is not an e-mail address\n' +
      '  line 9: malformed line: a quoted field is not closed on its line\n' +
      '  line 10: duplicate account: UADA is on line 2 already\n',
  );
  expect(await UserApp.findOne({ where: { app_id: slack.id, user_id: DEMO.users.linus } })).toMatchObject({ external_user_id: 'ULINUS' });
  expect(await UserApp.count({ where: { app_id: slack.id } })).toBe(3);

  const good = await apps('link-users', '--app', slack.id, '--csv', csvFile(`account,email\nUBARBARA,${DEMO.emails.barbara}\n`), '--json');
  expect(good).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(good.stdout)).toEqual({ linked: [{ line: 2, account: 'UBARBARA', user_id: DEMO.users.barbara, email: DEMO.emails.barbara }], already_linked: [], rejected: [], dry_run: false });

  expect(await apps('link-users', '--app', slack.id, '--csv', csvFile('email,account\nx@y.z,U1\n'))).toMatchObject({
    code: 1,
    stderr: 'apps: The file must start with the header line "account,email" (the account on the connection, then the member\'s e-mail)\n',
  });
  expect(await apps('link-users', '--app', slack.id, '--csv', '/nonexistent/accounts.csv')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^apps: Cannot read --csv \/nonexistent\/accounts.csv: /) });
  expect(await apps('link-users', '--app', 'app_nope', '--csv', file)).toMatchObject({ code: 1, stderr: 'apps: No app app_nope (see npm run apps -- list)\n' });
  expect(await apps('link-users', '--app', slack.id)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^apps: link-users needs --csv <file>/) });
});

test('unlinked lists the accounts with activity and no member, busiest first, with what each holds', async () => {
  const gitApp = await json(gitapps, 'create', '--org', ACME, '--provider', 'github', '--name', 'GitHub (unlinked)');
  await importCommits(gitApp.id, [
    commitBy('quiet', null, '2026-05-01T10:00:00Z'),
    commitBy('busy', 'busy@home.example', '2026-05-01T10:00:00Z'),
    commitBy('busy', 'busy@home.example', '2026-05-03T10:00:00Z'),
    commitBy('busy', 'busy@home.example', '2026-05-02T10:00:00Z'),
    commitBy(null, 'Mailer@Example.com', '2026-05-01T11:00:00Z'),
    commitBy(null, 'mailer@example.com', '2026-05-01T12:00:00Z'),
    // Members' commits, by e-mail or by their linked user name, are nobody's to link.
    commitBy('someone', DEMO.emails.ada),
  ]);
  const listed = await json(gitapps, 'unlinked', '--git-app', gitApp.id);
  expect(listed).toEqual({
    connection_id: gitApp.id,
    total: 3,
    accounts: [
      { account: 'busy', account_kind: 'account', activity: 3, by_kind: { commit: 3 }, last_seen_at: '2026-05-03T10:00:00.000Z' },
      { account: 'mailer@example.com', account_kind: 'email', activity: 2, by_kind: { commit: 2 }, last_seen_at: '2026-05-01T12:00:00.000Z' },
      { account: 'quiet', account_kind: 'account', activity: 1, by_kind: { commit: 1 }, last_seen_at: '2026-05-01T10:00:00.000Z' },
    ],
  });
  const text = await gitapps('unlinked', '--git-app', gitApp.id);
  expect(text.stdout).toMatch(/ACCOUNT +ACTIVITY +OF WHICH +LAST SEEN\nbusy +3 +3 commits +2026-05-03T10:00:00.000Z\n/);
  expect(text.stdout).toContain('3 accounts with no member, busiest first.');

  // Chat messages from accounts no member holds count for the app.
  const slack = await json(apps, 'create', '--org', ACME, '--provider', 'slack', '--name', 'Slack (unlinked)');
  const source = { appId: slack.id, organizationId: ACME, provider: 'slack' };
  const at = new Date('2026-05-04T09:00:00Z');
  const message = (sender: string, n: number) => ({ channel: 'C1', messageId: `${sender}.${n}`, sender, counterparts: [], at });
  await t.runtime.writers.conversations.receive({ source, id: 'Ev1', event: 'message' }, [message('UCHATTY', 1), message('UCHATTY', 2), message('USHY', 1)]);
  expect((await json(apps, 'unlinked', '--app', slack.id)).accounts.map((a: { account: string; activity: number }) => [a.account, a.activity])).toEqual([
    ['UCHATTY', 2],
    ['USHY', 1],
  ]);
  await json(apps, 'link-user', '--app', slack.id, '--user', DEMO.emails.linus, '--external-id', 'UCHATTY');
  expect((await json(apps, 'unlinked', '--app', slack.id)).accounts.map((a: { account: string }) => a.account)).toEqual(['USHY']);
  expect(await apps('unlinked', '--app', 'app_nope')).toMatchObject({ code: 1, stderr: 'apps: No app app_nope (see npm run apps -- list)\n' });
});
