import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AiVendorSource, App } from '../../db/models';
import { commentCreated, linearDelivery } from '../support/peers/linear/webhooks';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { eventually } from '../support/peers/receiver';
import { parseCommand } from '../../scripts/apps';
import { UsageError } from '../../scripts/cli';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(180_000);

/**
 * `npm run apps -- …` (docs/trackers.md#apps) as an operator runs it, in a child process on the test app's database:
 * apps made with their secret once and stored sealed, listed without it, disabled and enabled, their boards, status
 * names and accounts mapped; each change in the organization's audit log as the operator's. Refusals exit 1 with the
 * writer's message, usage errors 2 with the usage.
 */

let t: TestApp;
let apps: (...args: string[]) => Promise<CliRun>;
/** Each organization's admin's token: ada's for Acme, margaret's for Globex. */
const adminTokens: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestApp();
  // Base URLs on loopback over plain http (a test's fake) need the operator's allowance.
  apps = appCli(t, 'apps', { WEBHOOK_ALLOW_PRIVATE: '1' });
  adminTokens[DEMO.orgs.acme] = await t.token();
  adminTokens[DEMO.orgs.globex] = await t.token({ user: DEMO.emails.margaret });
});
afterAll(async () => t.close());

const ACME = DEMO.orgs.acme;
const GLOBEX = DEMO.orgs.globex;

/** A credential in a file of its own, as an operator keeps one. */
function tokenFile(credential: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'apps-cli-')), 'token');
  fs.writeFileSync(file, `${credential}\n`, { mode: 0o600 });
  return file;
}

async function json(...args: string[]) {
  const run = await apps(...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

/** What a command said, past the line naming the database. */
const said = (run: CliRun) => run.stdout.replace(/^Database: .*\n/, '');

/** The audit log's entries about one app, oldest first. */
async function auditOf(organizationId: string, appId: string) {
  const log = await t.get(`/v1/organizations/${organizationId}/audit-log?per_page=100`, adminTokens[organizationId]);
  expect(log.status).toBe(200);
  return log.body.data.filter((e: { target_id: string }) => e.target_id === appId).reverse();
}

test('create prints the webhook URL and the secret once; the database holds it sealed; list never shows it', async () => {
  const created = await json('create', '--org', GLOBEX, '--provider', 'jira', '--name', 'Jira globex', '--points-field', 'customfield_10016');
  expect(created).toEqual({ id: expect.stringMatching(/^app_/), webhook_url: `http://localhost:${t.config.PORT}/ingest/jira/${created.id}`, secret: expect.stringMatching(/^[\w-]{43}$/) });
  const row = await App.findByPk(created.id);
  expect(row).toMatchObject({ organization_id: GLOBEX, provider: 'jira', category: 'issues', name: 'Jira globex', points_field: 'customfield_10016' });
  expect(row!.webhook_secret).toMatch(/^v1\./);
  expect(row!.webhook_secret).not.toContain(created.secret);

  // The generic push API: its URL is the base of its two endpoints; the name defaults to the provider's.
  const deployments = await apps('create', '--org', GLOBEX, '--provider', 'deployments');
  expect(deployments.code).toBe(0);
  expect(deployments.stdout).toMatch(/^Created app app_\w+ \(deployments, deployments, organization org_globex\)\n {2}webhook URL: http:\/\/localhost:\d+\/ingest\/deployments\/app_\w+\n/m);
  expect(deployments.stdout).toMatch(/POST to http:\/\/localhost:\d+\/ingest\/deployments\/app_\w+\/deployments and .*\/incidents/);
  expect(deployments.stdout).toMatch(/shown only this once/);

  // An AI vendor's app pushes nothing: no URL, no secret; it is read with the credential the vendor issued, kept sealed.
  const githubToken = `github_pat_${randomBytes(30).toString('hex')}`;
  const copilot = await json('create', '--org', GLOBEX, '--provider', 'copilot', '--token-file', tokenFile(githubToken), '--github-org', 'globex-corp');
  expect(copilot).toEqual({ id: expect.stringMatching(/^app_/), webhook_url: null, secret: null });
  expect((await App.findByPk(copilot.id))!.webhook_secret).toBeNull();
  const source = await AiVendorSource.findByPk(copilot.id);
  expect(source).toMatchObject({ organization_id: GLOBEX, account_kind: 'organization', account: 'globex-corp', base_url: null, failing: false });
  expect(source!.credential).not.toContain(githubToken);
  expect(new SecretBox(() => secretsKeyFor(t.config)).open(source!.credential!)).toBe(githubToken);
  const cursorKey = `key_${randomBytes(32).toString('hex')}`;
  const cursor = await apps('create', '--org', GLOBEX, '--provider', 'cursor', '--name', 'Cursor globex', '--token-file', tokenFile(cursorKey), '--base-url', 'http://127.0.0.1:9/cursor/');
  expect(cursor.stdout).toMatch(/Cursor is read by the service with the credential stored sealed now; it is never shown again/);
  expect(cursor.stdout).not.toContain(cursorKey);
  expect(await AiVendorSource.findByPk(/app_\w+/.exec(cursor.stdout)![0])).toMatchObject({ account: null, base_url: 'http://127.0.0.1:9/cursor' });

  const list = await json('list', '--org', GLOBEX);
  const deploymentsId = /app_\w+/.exec(deployments.stdout)![0];
  const cursorId = /app_\w+/.exec(cursor.stdout)![0];
  // The demo's apps first (oldest first), then these.
  expect(list.map((a: { id: string }) => a.id).slice(-4)).toEqual([created.id, deploymentsId, copilot.id, cursorId]);
  expect(list.find((a: { id: string }) => a.id === DEMO.apps.globexSlack)).toMatchObject({ provider: 'slack', category: 'chat', has_secret: false, webhook_url: expect.stringContaining('/ingest/slack/') });
  expect(list.at(-4)).toEqual({
    id: created.id,
    organization_id: GLOBEX,
    provider: 'jira',
    category: 'issues',
    name: 'Jira globex',
    is_active: true,
    has_secret: true,
    previous_secret_accepted_until: null,
    webhook_url: created.webhook_url,
    points_field: 'customfield_10016',
    vendor: null,
    created_at: expect.any(String),
  });
  expect(list.at(-3)).toMatchObject({ provider: 'deployments', category: 'deployments', name: 'Deployments API', has_secret: true });
  expect(list.at(-2)).toMatchObject({
    provider: 'copilot',
    category: 'ai',
    name: 'GitHub Copilot',
    has_secret: true,
    webhook_url: null,
    vendor: { account: { kind: 'organization', slug: 'globex-corp' }, base_url: null, pulled_at: null, pull_result: null, failing: false },
  });
  expect(JSON.stringify(list)).not.toContain(created.secret);
  expect(JSON.stringify(list)).not.toContain(githubToken);

  const table = await apps('list', '--org', GLOBEX);
  expect(table.stdout.split('\n')[1]).toMatch(/^ID +ORGANIZATION +PROVIDER +CATEGORY +NAME +ACTIVE +SECRET +CREDENTIAL +WEBHOOK URL +LAST PULL +CREATED$/);
  expect(table.stdout).toMatch(new RegExp(`${created.id} +org_globex +jira +issues +Jira globex +yes +set +- +http://localhost:\\d+/ingest/jira/${created.id} +- `));
  expect(table.stdout).toMatch(new RegExp(`${copilot.id} +org_globex +copilot +ai +GitHub Copilot +yes +set +set +- +never `));
  expect(table.stdout).not.toContain(githubToken);
  expect(table.stdout).not.toContain(created.secret);
  expect((await json('list')).length).toBeGreaterThan(list.length);

  expect((await auditOf(GLOBEX, created.id)).map((e: { action: string; actor_type: string; details: object }) => [e.action, e.actor_type, e.details])).toEqual([
    ['app.created', 'operator', { provider: 'jira', name: 'Jira globex' }],
  ]);
});

test('rotate-secret prints a new one; disable and enable; each audited as the operator’s', async () => {
  const created = await json('create', '--org', ACME, '--provider', 'linear');
  const rotated = await json('rotate-secret', created.id);
  expect(rotated).toEqual({ id: created.id, webhook_url: created.webhook_url, secret: expect.stringMatching(/^[\w-]{43}$/) });
  expect(rotated.secret).not.toBe(created.secret);
  const row = await App.findByPk(created.id);
  expect(row!.webhook_secret).not.toContain(rotated.secret);
  expect(row!.previous_webhook_secret).not.toContain(created.secret);
  const human = await apps('rotate-secret', created.id);
  expect(human.stdout).toMatch(/^New secret for app app_\w+ \(linear, issues, organization org_acme\)$/m);
  expect(human.stdout).toMatch(/The previous secret is still accepted for 24 hours/);

  expect(await json('disable', created.id)).toMatchObject({ id: created.id, is_active: false, has_secret: true });
  expect(said(await apps('disable', created.id))).toBe(`Disabled ${created.id}: its deliveries are refused until "apps enable ${created.id}"; what it brought stays.\n`);
  expect(await json('enable', created.id)).toMatchObject({ id: created.id, is_active: true });

  const audit = await auditOf(ACME, created.id);
  // Disabling twice is one change.
  expect(audit.map((e: { action: string }) => e.action)).toEqual(['app.created', 'app.secret_rotated', 'app.secret_rotated', 'app.disabled', 'app.enabled']);
  for (const e of audit) expect(e).toMatchObject({ actor_type: 'operator', actor_user_id: null, target_type: 'app' });
  const log = JSON.stringify(audit);
  for (const secret of [created.secret, rotated.secret]) expect(log).not.toContain(secret);
});

test('rotate-secret --end-grace: a leaked previous secret is refused at once instead of for 24 hours; audited', async () => {
  const created = await json('create', '--org', ACME, '--provider', 'linear');
  const rotated = await json('rotate-secret', created.id);
  const deliver = (secret: string) => {
    const d = linearDelivery(commentCreated, secret, { sentAt: new Date() });
    return request(t.runtime.app).post(`/ingest/linear/${created.id}`).set(d.headers).send(d.body.toString('utf8'));
  };
  // During the grace a delivery signed with the previous secret is taken, as one signed with the new one.
  expect((await deliver(created.secret)).status).toBe(202);
  expect((await deliver(rotated.secret)).status).toBe(202);
  const graceEnd = (await json('list', '--org', ACME)).find((a: { id: string }) => a.id === created.id).previous_secret_accepted_until;
  expect(Date.parse(graceEnd) - Date.now()).toBeGreaterThan(23 * 3_600_000);

  const ended = await apps('rotate-secret', created.id, '--end-grace');
  expect([ended.code, said(ended)]).toEqual([0, `The previous secret of app ${created.id} is refused from now on: only the current one is accepted.\n`]);
  expect((await App.findByPk(created.id))!.previous_webhook_secret).toBeNull();
  // The change reaches the service at once through Redis, else by its next read of the data versions (each second,
  // docs/performance.md); no new secret was made, so the current one keeps working.
  await eventually('the previous secret refused', async () => (await deliver(created.secret)).status === 401);
  const refused = await deliver(created.secret);
  expect([refused.status, refused.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
  expect((await deliver(rotated.secret)).status).toBe(202);

  // Again: nothing left to refuse, so nothing written or audited.
  expect(await json('rotate-secret', created.id, '--end-grace')).toMatchObject({ id: created.id, has_secret: true, previous_secret_accepted_until: null });
  expect(said(await apps('rotate-secret', created.id, '--end-grace'))).toBe(`App ${created.id} has no previous secret still accepted: only the current one is.\n`);
  const audit = await auditOf(ACME, created.id);
  expect(audit.map((e: { action: string; actor_type: string }) => [e.action, e.actor_type])).toEqual([
    ['app.created', 'operator'],
    ['app.secret_rotated', 'operator'],
    ['app.secret_grace_ended', 'operator'],
  ]);
  for (const secret of [created.secret, rotated.secret]) expect(JSON.stringify(audit)).not.toContain(secret);

  expect(parseCommand(['rotate-secret', 'app_1', '--end-grace', '--json'])).toEqual({ kind: 'end-grace', id: 'app_1', json: true });
  expect(await apps('disable', created.id, '--end-grace')).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--end-grace'") });
  expect(await apps('rotate-secret', 'app_nope', '--end-grace')).toMatchObject({ code: 1, stderr: 'apps: No app app_nope (see npm run apps -- list)\n' });
});

test('map boards to a team or a repository, a git app’s too; each audited', async () => {
  const jira = await json('create', '--org', ACME, '--provider', 'jira');
  const pagerduty = await json('create', '--org', ACME, '--provider', 'pagerduty');
  expect(await json('map', '--app', jira.id, '--board', 'PLAT', '--team', DEMO.teams.platform)).toEqual({
    app_id: jira.id,
    board: 'PLAT',
    team_id: DEMO.teams.platform,
    repository_id: null,
    created_at: expect.any(String),
  });
  expect(said(await apps('map', '--app', jira.id, '--board', 'MOB', '--team', DEMO.teams.mobile))).toBe(
    `Mapped board MOB of ${jira.id} to team ${DEMO.teams.mobile}; what it brought is placed there now.\n`,
  );
  expect(await json('map', '--app', pagerduty.id, '--board', 'PX1234', '--repository', DEMO.repos.acmeApi)).toMatchObject({ board: 'PX1234', team_id: null, repository_id: DEMO.repos.acmeApi });
  expect(await json('map', '--app', DEMO.gitApps.acmeGithub, '--board', 'acme/api', '--team', DEMO.teams.platform)).toMatchObject({ app_id: DEMO.gitApps.acmeGithub, board: 'acme/api' });

  expect((await json('mappings', DEMO.gitApps.acmeGithub)).boards).toEqual([expect.objectContaining({ board: 'acme/api', team_id: DEMO.teams.platform })]);
  expect(said(await apps('mappings', pagerduty.id))).toMatch(/^BOARD +TEAM +REPOSITORY +MAPPED\nPX1234 +- +repo_acme_api +\d{4}-/);
  // A service that runs two repositories: mapped to each, then untied from one.
  expect(await json('map', '--app', pagerduty.id, '--board', 'PX1234', '--repository', DEMO.repos.acmeWeb)).toMatchObject({ board: 'PX1234', repository_id: DEMO.repos.acmeWeb });
  expect((await json('mappings', pagerduty.id)).boards.map((b: { repository_id: string }) => b.repository_id)).toEqual([DEMO.repos.acmeApi, DEMO.repos.acmeWeb]);
  expect(said(await apps('unmap', '--app', pagerduty.id, '--board', 'PX1234', '--repository', DEMO.repos.acmeWeb))).toBe(
    `Unmapped board PX1234 of ${pagerduty.id} from repository ${DEMO.repos.acmeWeb}: its incidents count for the repositories left.\n`,
  );
  expect(await apps('unmap', '--app', pagerduty.id, '--board', 'PX1234', '--repository', DEMO.repos.acmeWeb)).toMatchObject({
    code: 1,
    stderr: `apps: Board PX1234 of ${pagerduty.id} is not mapped to repository ${DEMO.repos.acmeWeb} (see npm run apps -- mappings ${pagerduty.id})\n`,
  });
  expect((await auditOf(ACME, jira.id)).map((e: { action: string; details: object }) => [e.action, e.details])).toEqual([
    ['app.created', { provider: 'jira', name: 'Jira' }],
    ['app.board_mapped', { board: 'PLAT', team_id: DEMO.teams.platform }],
    ['app.board_mapped', { board: 'MOB', team_id: DEMO.teams.mobile }],
  ]);
  expect((await auditOf(ACME, pagerduty.id)).map((e: { details: object }) => e.details)).toContainEqual({ board: 'PX1234', repository_id: DEMO.repos.acmeApi });
});

test('override status names, unmap, list the mappings', async () => {
  const jira = await json('create', '--org', ACME, '--provider', 'jira', '--name', 'Jira (statuses)');
  expect(await json('map', '--app', jira.id, '--board', 'PLAT', '--team', DEMO.teams.platform)).toMatchObject({ board: 'PLAT' });
  expect(await json('map', '--app', jira.id, '--board', 'MOB', '--team', DEMO.teams.mobile)).toMatchObject({ board: 'MOB' });
  expect(await json('map-status', '--app', jira.id, '--status', ' Blocked ', '--to', 'paused')).toEqual({ app_id: jira.id, status: 'Blocked', category: 'paused', tasks: 0 });
  expect(said(await apps('map-status', '--app', jira.id, '--status', "Won't Do", '--to', 'canceled'))).toBe(`"Won't Do" of ${jira.id} now counts as canceled; 0 tasks derived again.\n`);

  expect(await json('unmap', '--app', jira.id, '--board', 'MOB')).toEqual({ app_id: jira.id, board: 'MOB' });
  expect(await apps('unmap', '--app', jira.id, '--board', 'MOB')).toMatchObject({ code: 1, stderr: `apps: Board MOB of ${jira.id} is not mapped (see npm run apps -- mappings ${jira.id})\n` });

  expect(await json('mappings', jira.id)).toEqual({
    app_id: jira.id,
    boards: [{ app_id: jira.id, board: 'PLAT', team_id: DEMO.teams.platform, repository_id: null, created_at: expect.any(String) }],
    statuses: [
      { status: 'blocked', category: 'paused', created_at: expect.any(String) },
      { status: "won't do", category: 'canceled', created_at: expect.any(String) },
    ],
  });
  const human = said(await apps('mappings', jira.id));
  expect(human).toMatch(/^BOARD +TEAM +REPOSITORY +MAPPED\nPLAT +team_platform +- +\d{4}-[^\n]*\n\nSTATUS +COUNTED AS\nblocked +paused\nwon't do +canceled\n$/);
  expect(said(await apps('mappings', (await json('create', '--org', ACME, '--provider', 'slack')).id))).toBe('No boards mapped.\n\nNo status overrides.\n');

  expect((await auditOf(ACME, jira.id)).map((e: { action: string; details: object }) => [e.action, e.details]).slice(3)).toEqual([
    ['app.status_mapped', { status: 'Blocked', category: 'paused' }],
    ['app.status_mapped', { status: "Won't Do", category: 'canceled' }],
    ['app.board_unmapped', { board: 'MOB' }],
  ]);
});

test('link-user links a member by e-mail or id; another member cannot take the same account', async () => {
  const slack = await json('create', '--org', ACME, '--provider', 'slack', '--name', 'Slack (linked)');
  expect(await json('link-user', '--app', slack.id, '--user', 'ADA@demo.test', '--external-id', 'U012AB3CD')).toEqual({
    app_id: slack.id,
    user_id: DEMO.users.ada,
    external_user_id: 'U012AB3CD',
    created_at: expect.any(String),
  });
  expect(said(await apps('link-user', '--app', slack.id, '--user', DEMO.users.linus, '--external-id', 'U0LINUS'))).toBe(`Linked account U0LINUS of ${slack.id} to ${DEMO.users.linus}.\n`);
  expect(await apps('link-user', '--app', slack.id, '--user', DEMO.users.grace, '--external-id', 'U012AB3CD')).toMatchObject({
    code: 1,
    stderr: `apps: Account U012AB3CD of app ${slack.id} is already linked to ${DEMO.users.ada}\n`,
  });
  expect(await apps('link-user', '--app', slack.id, '--user', DEMO.emails.margaret.replace('margaret', 'nobody'), '--external-id', 'U9')).toMatchObject({
    code: 1,
    stderr: `apps: No member nobody@demo.test in organization ${ACME}\n`,
  });
  const audit = await auditOf(ACME, slack.id);
  expect(audit.map((e: { action: string; details: object }) => [e.action, e.details])).toEqual([
    ['app.created', { provider: 'slack', name: 'Slack (linked)' }],
    ['app.user_linked', { user_id: DEMO.users.ada, external_user_id: 'U012AB3CD' }],
    ['app.user_linked', { user_id: DEMO.users.linus, external_user_id: 'U0LINUS' }],
  ]);
});

test('refusals exit 1 with what to fix: unknown organization, app, team, repository; another organization’s team or repository', async () => {
  const jira = await json('create', '--org', ACME, '--provider', 'jira', '--name', 'Jira (refusals)');
  const refusals: [string[], string][] = [
    [['create', '--org', 'org_nope', '--provider', 'jira'], 'apps: No organization org_nope\n'],
    [['create', '--org', ACME, '--provider', 'linear', '--points-field', 'estimate'], 'apps: Only Jira apps name a story points field; linear sends its own estimate\n'],
    [['rotate-secret', 'app_nope'], 'apps: No app app_nope (see npm run apps -- list)\n'],
    [['disable', 'app_nope'], 'apps: No app app_nope (see npm run apps -- list)\n'],
    [['enable', 'app_nope'], 'apps: No app app_nope (see npm run apps -- list)\n'],
    [['map', '--app', jira.id, '--board', 'X', '--team', 'team_nope'], `apps: No team team_nope in organization ${ACME}\n`],
    [['map', '--app', jira.id, '--board', 'X', '--team', DEMO.teams.globexCore], `apps: No team ${DEMO.teams.globexCore} in organization ${ACME}\n`],
    [['map', '--app', jira.id, '--board', 'X', '--repository', DEMO.repos.globexCore], `apps: No repository ${DEMO.repos.globexCore} in organization ${ACME}\n`],
  ];
  for (const [args, stderr] of refusals) expect({ args, ...(await apps(...args)) }).toMatchObject({ args, code: 1, stderr });
});

test('refusals exit 1 with what to fix: an unknown app, git app or member on the mapping commands', async () => {
  const jira = await json('create', '--org', ACME, '--provider', 'jira', '--name', 'Jira (more refusals)');
  const refusals: [string[], string][] = [
    [['mappings', 'app_nope'], 'apps: No app or git app app_nope (see npm run apps -- list, npm run gitapps -- list)\n'],
    [['map', '--app', 'gapp_nope', '--board', 'X', '--team', DEMO.teams.platform], 'apps: No app or git app gapp_nope (see npm run apps -- list, npm run gitapps -- list)\n'],
    [['unmap', '--app', 'app_nope', '--board', 'X'], 'apps: No app or git app app_nope (see npm run apps -- list, npm run gitapps -- list)\n'],
    [['map-status', '--app', 'app_nope', '--status', 'Blocked', '--to', 'paused'], 'apps: No app or git app app_nope (see npm run apps -- list, npm run gitapps -- list)\n'],
    [['link-user', '--app', 'app_nope', '--user', DEMO.users.ada, '--external-id', 'U1'], 'apps: No app app_nope (see npm run apps -- list)\n'],
    [['link-user', '--app', jira.id, '--user', DEMO.users.margaret.replace('margaret', 'nobody'), '--external-id', 'U1'], `apps: No member usr_nobody in organization ${ACME}\n`],
  ];
  for (const [args, stderr] of refusals) expect({ args, ...(await apps(...args)) }).toMatchObject({ args, code: 1, stderr });
  expect(await json('mappings', jira.id)).toEqual({ app_id: jira.id, boards: [], statuses: [] });
});

test('usage errors exit 2 with the usage; --help exits 0', async () => {
  const bad = await apps('create', '--org', ACME, '--provider', 'bitbucket');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/^apps: create needs --provider jira\|linear\|slack\|pagerduty\|opsgenie\|deployments\|copilot\|cursor\|claude_code \(got 'bitbucket'\)\n\nUsage:\n {2}npm run apps -- create/);
  expect(await apps('map', '--app', 'app_x', '--board', 'B')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^apps: map needs either --team <team id> \(tasks\) or --repository <repository id>/) });
  expect(await apps('rotate-secret')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^apps: rotate-secret needs exactly one app id/) });
  expect(await apps('frobnicate')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^apps: unknown command "frobnicate"/) });
  const help = await apps('--help');
  expect(help).toMatchObject({ code: 0, stderr: '' });
  expect(help.stdout).toContain('npm run apps -- map-status --app <id> --status <name> --to backlog|active|paused|done|canceled');
});

test('the command line, parsed', () => {
  const usage = (...argv: string[]) => {
    try {
      parseCommand(argv);
    } catch (e) {
      if (e instanceof UsageError) return e.message;
      throw e;
    }
    throw new Error(`no usage error for ${argv.join(' ')}`);
  };
  expect(parseCommand(['create', '--org', 'o', '--provider', 'jira', '--name', ' Jira ', '--points-field', 'customfield_10016'])).toEqual({
    kind: 'create',
    org: 'o',
    provider: 'jira',
    name: 'Jira',
    pointsField: 'customfield_10016',
    json: false,
  });
  expect(parseCommand(['create', '--org', 'o', '--provider', 'cursor', '--token-file', 'k', '--json'])).toEqual({ kind: 'create', org: 'o', provider: 'cursor', vendor: { tokenFile: 'k' }, json: true });
  expect(parseCommand(['create', '--org', 'o', '--provider', 'copilot', '--token-file', 'k', '--github-enterprise', 'acme', '--base-url', 'https://ghe.example/api/v3'])).toEqual({
    kind: 'create',
    org: 'o',
    provider: 'copilot',
    vendor: { tokenFile: 'k', account: { kind: 'enterprise', slug: 'acme' }, baseUrl: 'https://ghe.example/api/v3' },
    json: false,
  });
  expect(parseCommand(['list'])).toEqual({ kind: 'list', json: false });
  expect(parseCommand(['disable', 'app_1', '--json'])).toEqual({ kind: 'disable', id: 'app_1', json: true });
  expect(parseCommand(['map', '--app', 'a', '--board', 'B', '--repository', 'r'])).toEqual({ kind: 'map', app: 'a', board: 'B', target: { repositoryId: 'r' }, json: false });
  expect(parseCommand(['unmap', '--app', 'a', '--board', 'B', '--repository', 'r'])).toEqual({ kind: 'unmap', app: 'a', board: 'B', repository: 'r', json: false });
  expect(parseCommand(['unmap', '--app', 'a', '--board', 'B'])).toEqual({ kind: 'unmap', app: 'a', board: 'B', json: false });
  expect(parseCommand(['map-status', '--app', 'a', '--status', 'In Review', '--to', 'active'])).toEqual({ kind: 'map-status', app: 'a', status: 'In Review', category: 'active', json: false });
  expect(parseCommand(['link-user', '--app', 'a', '--user', 'u@x.test', '--external-id', '42'])).toEqual({ kind: 'link-user', app: 'a', user: 'u@x.test', externalId: '42', json: false });
  expect(parseCommand(['mappings', 'x', '--help'])).toEqual({ kind: 'help' });

  expect(usage()).toMatch(/^a command is required: create, list, rotate-secret/);
  expect(usage('create', '--provider', 'jira')).toBe('create needs --org <organization id>');
  expect(usage('create', '--org', 'o', '--provider', 'jira', '--name', ' ')).toBe('--name must not be empty');
  expect(usage('create', '--org', 'o', '--provider', 'jira', '--name', 'x'.repeat(201))).toBe('--name has at most 200 characters');
  expect(usage('map', '--app', 'a', '--board', 'B', '--team', 't', '--repository', 'r')).toMatch(/^map needs either --team/);
  expect(usage('map', '--app', 'a', '--team', 't')).toBe('map needs --board <board key>');
  expect(usage('unmap', '--board', 'B')).toBe('unmap needs --app <app or git app id>');
  expect(usage('unmap', '--app', 'a', '--board', 'B', '--repository', ' ')).toBe('--repository must not be empty');
  expect(usage('map-status', '--app', 'a', '--status', 'S', '--to', 'blocked')).toBe("map-status needs --to backlog|active|paused|done|canceled (got 'blocked')");
  expect(usage('map-status', '--app', 'a', '--to', 'paused')).toBe('map-status needs --status <status name>');
  expect(usage('link-user', '--app', 'a', '--user', 'u')).toBe("link-user needs --external-id <the member's account id on the app>");
  expect(usage('mappings', 'a', 'b')).toBe('mappings needs exactly one app or git app id');
  expect(usage('list', '--org', '')).toBe('--org must not be empty');
  expect(usage('map', '--app', 'a', '--board', 'B'.repeat(201), '--team', 't')).toBe('--board has at most 200 characters');
  expect(usage('create', '--org', 'o', '--provider', 'jira', '--points-field', 'f'.repeat(101))).toBe('--points-field has at most 100 characters');
  expect(usage('enable', 'a', '--force')).toMatch(/Unknown option '--force'/);
  expect(usage('create', '--org', 'o', '--provider', 'cursor')).toBe('create --provider cursor needs --token-file <file holding the key the vendor issued>');
  expect(usage('create', '--org', 'o', '--provider', 'copilot', '--token-file', 'k')).toBe('create --provider copilot needs --github-org <slug> or --github-enterprise <slug>');
  expect(usage('create', '--org', 'o', '--provider', 'copilot', '--token-file', 'k', '--github-org', 'a', '--github-enterprise', 'b')).toBe('give --github-org or --github-enterprise, not both');
  expect(usage('create', '--org', 'o', '--provider', 'jira', '--token-file', 'k', '--base-url', 'https://x')).toBe("--token-file, --base-url: only for an AI vendor's app (copilot, cursor, claude_code)");
});

test("set-secret stores the secret a provider made: Linear's deliveries signed with it are taken, the old one kept for its grace", async () => {
  const created = await json('create', '--org', ACME, '--provider', 'linear');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'apps-secret-')), 'linear-secret');
  const linearMade = `lin_wh_${randomBytes(24).toString('hex')}`;
  fs.writeFileSync(file, `${linearMade}\n`);
  const stored = await json('set-secret', '--app', created.id, '--secret-file', file);
  expect(stored).toMatchObject({ id: created.id, has_secret: true, webhook_url: created.webhook_url });
  const app = (await App.findByPk(created.id))!;
  expect(t.runtime.writers.apps.secretsOf(app)).toEqual([linearMade, created.secret]);
  const delivery = linearDelivery(commentCreated, linearMade, { sentAt: new Date() });
  const answer = await request(t.runtime.app).post(`/ingest/linear/${created.id}`).set(delivery.headers).send(delivery.body.toString('utf8'));
  expect([answer.status, answer.body.data?.result]).toEqual([202, 'ignored']);
  expect((await auditOf(ACME, created.id)).map((e: { action: string }) => e.action)).toEqual(['app.created', 'app.secret_rotated']);

  fs.writeFileSync(file, 'short');
  expect(await apps('set-secret', '--app', created.id, '--secret-file', file)).toMatchObject({ code: 1, stderr: expect.stringContaining('16 to 500 printable characters') });
  expect(await apps('set-secret', '--app', created.id)).toMatchObject({ code: 2 });
});

test('an AI vendor’s app: a new credential replaces the one that failed, sealed and audited; what the vendor would refuse is refused first', async () => {
  const claude = await json('create', '--org', ACME, '--provider', 'claude_code', '--token-file', tokenFile(`sk-ant-admin01-${randomBytes(40).toString('hex')}`));
  await AiVendorSource.update({ failing: true, pull_result: 'The vendor refused the credential (401)' }, { where: { app_id: claude.id } });
  const renewed = `sk-ant-admin01-${randomBytes(40).toString('hex')}`;
  const file = tokenFile(renewed);
  const set = await apps('set-secret', '--app', claude.id, '--secret-file', file);
  expect([set.code, said(set)]).toEqual([0, `Stored the new credential of app ${claude.id}, sealed; the next pull uses it.\n`]);
  const source = (await AiVendorSource.findByPk(claude.id))!;
  expect([source.failing, source.pull_result]).toEqual([false, 'The credential was replaced; the next pull uses it.']);
  expect(new SecretBox(() => secretsKeyFor(t.config)).open(source.credential!)).toBe(renewed);
  expect((await auditOf(ACME, claude.id)).map((e: { action: string; details: object }) => [e.action, e.details])).toEqual([
    ['app.created', { provider: 'claude_code', name: 'Claude Code' }],
    ['app.secret_rotated', { made_by: 'vendor' }],
  ]);
  // No rotation of a webhook secret it does not have.
  expect(await apps('rotate-secret', claude.id)).toMatchObject({ code: 1, stderr: `apps: App ${claude.id} (claude_code) receives no webhooks, so it has no webhook secret to rotate or set\n` });

  const before = await AiVendorSource.count();
  for (const [args, message] of [
    [['--provider', 'cursor', '--token-file', tokenFile('short')], 'The credential must be 8 to 1000 printable characters without spaces: a Cursor Admin API key'],
    [['--provider', 'cursor', '--token-file', tokenFile('key_0123456789abcdef'), '--github-org', 'acme'], 'Cursor reads the usage of the whole team its key belongs to: it takes no GitHub organization'],
    [['--provider', 'copilot', '--token-file', tokenFile('ghp_0123456789abcdef'), '--github-org', 'acme--corp'], "'acme--corp' is not a GitHub organization slug"],
    [['--provider', 'copilot', '--token-file', tokenFile('ghp_0123456789abcdef'), '--github-org', 'acme', '--base-url', 'ftp://ghe.example'], 'The base URL must be http or https, not ftp:'],
    [['--provider', 'copilot', '--token-file', tokenFile('ghp_0123456789abcdef'), '--github-org', 'acme', '--base-url', 'https://u:p@ghe.example'], 'The base URL takes no user, password, query or fragment'],
    [['--provider', 'claude_code', '--token-file', '/nonexistent/token'], 'Cannot read --token-file /nonexistent/token'],
  ] as const) {
    expect(await apps('create', '--org', ACME, ...args)).toMatchObject({ code: 1, stderr: expect.stringContaining(message) });
  }
  expect(await AiVendorSource.count()).toBe(before);
});
