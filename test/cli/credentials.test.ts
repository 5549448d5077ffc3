import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { AiVendorSource, AuditEntry, ConnectionCredential } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { parseCommand as parseGitApps } from '../../scripts/gitapps';
import { parseCommand as parseApps } from '../../scripts/apps';
import { UsageError } from '../../scripts/cli';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { providerCatalog } from '../../src/integrations/catalog';
import { AppWriter } from '../../src/services/apps/apps';
import { GitAppWriter } from '../../src/services/git/apps/gitApps';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import { OrganizationWriter } from '../../src/services/organizations/organizations';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(240_000);

/**
 * `gitapps set-credential` and `apps set-credential` (docs/ingest.md#credentials-for-reading-the-providers-api) as an
 * operator runs them, in a child process on the test app's database: the token or GitHub App key read from its
 * file, stored sealed, replaced by the next set, each set audited without the secret; an AI vendor's app's goes
 * where its pulls read it. Neither output ever holds the secret; refusals exit 1 saying what to fix.
 */

let t: TestApp;
let gitapps: (...args: string[]) => Promise<CliRun>;
let apps: (...args: string[]) => Promise<CliRun>;
let box: SecretBox;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  t = await startTestApp();
  gitapps = appCli(t, 'gitapps');
  apps = appCli(t, 'apps');
  box = new SecretBox(() => secretsKeyFor(t.config));
  credentials = new ConnectionCredentials(ChangeRunner.for(t.runtime.sequelize), box, providerCatalog());
});
afterAll(async () => t.close());

const GITHUB = DEMO.gitApps.acmeGithub;
const GITLAB = DEMO.gitApps.globexGitlab;

/** A file holding `text`, as an operator keeps a credential. */
function fileWith(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'credentials-cli-')), 'credential');
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** A GitHub App's private key in the form GitHub downloads it. */
const privateKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

/** The command's outputs, which must never hold the secret. */
function expectNotShown(run: CliRun, secret: string): void {
  for (const part of secret.split('\n').filter((l) => l.length > 20)) {
    expect(run.stdout).not.toContain(part);
    expect(run.stderr).not.toContain(part);
  }
}

async function auditOf(connectionId: string) {
  const entries = await AuditEntry.findAll({ where: { target_id: connectionId, action: ['git_app.credential_set', 'app.credential_set', 'app.secret_rotated'] }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  return entries.map((e) => [e.action, e.actor_type, JSON.parse(String(e.details))]);
}

test('a GitHub git app: a token, then a GitHub App in its place; sealed, opened by the reader, audited twice without the secret', async () => {
  const token = `ghp_${randomBytes(18).toString('hex')}`;
  const byToken = await gitapps('set-credential', '--git-app', GITHUB, '--token-file', fileWith(`${token}\n`), '--json');
  expect(byToken).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(byToken.stdout)).toEqual({ id: GITHUB, kind: 'token', updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  expectNotShown(byToken, token);
  const row = await ConnectionCredential.findByPk(GITHUB);
  expect(row).toMatchObject({ organization_id: DEMO.orgs.acme, kind: 'token', github_app_id: null, installation_id: null });
  expect(row!.sealed_secret).toMatch(/^v1\./);
  expect(row!.sealed_secret).not.toContain(token);
  expect(box.open(row!.sealed_secret)).toBe(token);
  expect(await credentials.credentialOf(GITHUB)).toEqual({ kind: 'token', token });

  const key = privateKey();
  const byApp = await gitapps('set-credential', '--git-app', GITHUB, '--github-app-id', '123456', '--private-key-file', fileWith(key), '--installation-id', '7890123');
  expect(byApp).toMatchObject({ code: 0, stderr: '' });
  expect(byApp.stdout).toContain(`Stored the GitHub App 123456's key for installation 7890123 of git app ${GITHUB}, sealed; it is never shown.`);
  expectNotShown(byApp, key);
  const replaced = await ConnectionCredential.findByPk(GITHUB);
  expect(replaced).toMatchObject({ kind: 'github_app', github_app_id: '123456', installation_id: '7890123', created_at: row!.created_at });
  expect(replaced!.updated_at.getTime()).toBeGreaterThanOrEqual(row!.updated_at.getTime());
  expect(replaced!.sealed_secret).not.toContain('PRIVATE KEY');
  expect(await credentials.credentialOf(GITHUB)).toEqual({ kind: 'github_app', appId: '123456', installationId: '7890123', privateKey: key.trim() });
  expect(await ConnectionCredential.count({ where: { connection_id: GITHUB } })).toBe(1);

  const audit = await auditOf(GITHUB);
  expect(audit).toEqual([
    ['git_app.credential_set', 'operator', { kind: 'token' }],
    ['git_app.credential_set', 'operator', { kind: 'github_app', github_app_id: '123456', installation_id: '7890123' }],
  ]);
  expect(JSON.stringify(audit)).not.toContain(token);

  const list = await gitapps('list', '--org', DEMO.orgs.acme);
  expect(list.stdout.split('\n')[1]).toMatch(/ +SECRET +CREDENTIAL +WEBHOOK URL +CREATED$/);
  expect(list.stdout).toMatch(new RegExp(`${GITHUB} +org_acme +github +Acme GitHub +yes +none +set +http`));
  expectNotShown(list, key);
});

test('a PagerDuty app by token; an AI vendor’s app (Copilot) keeps its credential where its pulls read it, as set-secret stores it', async () => {
  const pagerdutyKey = `u+${randomBytes(15).toString('base64url')}`;
  const pagerduty = await apps('set-credential', '--app', DEMO.apps.acmePagerduty, '--token-file', fileWith(`\n${pagerdutyKey}\n\n`));
  expect(pagerduty).toMatchObject({ code: 0, stderr: '' });
  expect(pagerduty.stdout).toContain(`Stored the token of app ${DEMO.apps.acmePagerduty}, sealed; it is never shown.`);
  expectNotShown(pagerduty, pagerdutyKey);
  expect(await credentials.credentialOf(DEMO.apps.acmePagerduty)).toEqual({ kind: 'token', token: pagerdutyKey });
  expect(await auditOf(DEMO.apps.acmePagerduty)).toEqual([['app.credential_set', 'operator', { kind: 'token' }]]);

  const copilotToken = `github_pat_${randomBytes(30).toString('hex')}`;
  const copilot = await apps('set-credential', '--app', DEMO.apps.acmeCopilot, '--token-file', fileWith(`${copilotToken}\n`), '--json');
  expect(copilot).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(copilot.stdout)).toEqual({ id: DEMO.apps.acmeCopilot, kind: 'token', updated_at: expect.any(String) });
  expectNotShown(copilot, copilotToken);
  const source = await AiVendorSource.findByPk(DEMO.apps.acmeCopilot);
  expect(source!.credential).not.toContain(copilotToken);
  expect(box.open(source!.credential!)).toBe(copilotToken);
  expect(source!.failing).toBe(false);
  expect(await ConnectionCredential.findByPk(DEMO.apps.acmeCopilot)).toBeNull();
  expect(await auditOf(DEMO.apps.acmeCopilot)).toEqual([['app.secret_rotated', 'operator', { made_by: 'vendor' }]]);

  const list = await apps('list', '--org', DEMO.orgs.acme);
  expect(list.stdout).toMatch(new RegExp(`${DEMO.apps.acmePagerduty} +org_acme +pagerduty +incidents +PagerDuty +yes +none +set +http`));
  expect(list.stdout).toMatch(new RegExp(`${DEMO.apps.acmeCopilot} +org_acme +copilot +ai +GitHub Copilot +yes +set +set +- `));
  expect(list.stdout).toMatch(new RegExp(`${DEMO.apps.acmeJira} +org_acme +jira +issues +Jira +yes +none +- +http`));
  for (const secret of [pagerdutyKey, copilotToken]) expectNotShown(list, secret);
});

test('refusals say what to fix, exit 1, and store nothing', async () => {
  const before = await ConnectionCredential.count();
  const deployments = await new AppWriter(ChangeRunner.for(t.runtime.sequelize), box, providerCatalog()).create(DEMO.orgs.acme, 'deployments');
  const token = fileWith('glpat-abcdefghijklmnop\n');
  const refusals: [Promise<CliRun>, string][] = [
    [gitapps('set-credential', '--git-app', GITLAB, '--token-file', '/nonexistent/token'), 'gitapps: Cannot read --token-file /nonexistent/token: ENOENT'],
    [gitapps('set-credential', '--git-app', GITLAB, '--token-file', fileWith(' \n\n')), 'gitapps: The token file is empty: it must hold the token the provider issued\n'],
    [gitapps('set-credential', '--git-app', GITLAB, '--token-file', fileWith('glpat-abc def\n')), 'gitapps: The token file holds whitespace inside the token: it must hold one token and nothing else\n'],
    [apps('set-credential', '--app', DEMO.apps.acmePagerduty, '--token-file', fileWith('x'.repeat(10 * 1024 + 1))), 'apps: The token file holds more than 10 KB'],
    [
      gitapps('set-credential', '--git-app', GITLAB, '--github-app-id', '1', '--private-key-file', fileWith(privateKey()), '--installation-id', '2'),
      "gitapps: A GitHub App's key is for a GitHub git app; GitLab is read with a GitLab access token (personal, group or project): give it with --token-file <file>\n",
    ],
    [gitapps('set-credential', '--git-app', GITHUB, '--github-app-id', '1', '--private-key-file', token, '--installation-id', '2'), 'gitapps: The private key file must hold a PEM private key'],
    [gitapps('set-credential', '--git-app', GITHUB, '--github-app-id', '0', '--private-key-file', fileWith(privateKey()), '--installation-id', '2'), "gitapps: --github-app-id must be a positive integer, as GitHub shows it (got '0')\n"],
    [gitapps('set-credential', '--git-app', GITHUB, '--github-app-id', '1', '--private-key-file', fileWith(privateKey()), '--installation-id', 'acme'), "gitapps: --installation-id must be a positive integer, as GitHub shows it (got 'acme')\n"],
    [
      apps('set-credential', '--app', deployments.app.id, '--token-file', token),
      `apps: App ${deployments.app.id} (deployments) is not read from its provider's API, so it takes no credential; those that do: slack, pagerduty, opsgenie apps, and the AI vendors' (copilot, cursor, claude_code)\n`,
    ],
    [gitapps('set-credential', '--git-app', 'gapp_nope', '--token-file', token), 'gitapps: No git app gapp_nope (see npm run gitapps -- list)\n'],
    [apps('set-credential', '--app', 'app_nope', '--token-file', token), 'apps: No app app_nope (see npm run apps -- list)\n'],
  ];
  for (const [run, message] of refusals) {
    const done = await run;
    expect([done.code, done.stdout.replace(/^Database: .*\n/, '')]).toEqual([1, '']);
    if (message.endsWith('\n')) expect(done.stderr).toBe(message);
    else expect(done.stderr.startsWith(message)).toBe(true);
  }
  expect(await ConnectionCredential.count()).toBe(before);
});

test('usage errors: a token and a GitHub App at once, a GitHub App without all three, a GitHub App for an app', async () => {
  expect(parseGitApps(['set-credential', '--git-app', 'gapp_1', '--token-file', 'f', '--json'])).toEqual({ kind: 'set-credential', connection: 'gapp_1', files: { kind: 'token', tokenFile: 'f' }, json: true });
  expect(parseGitApps(['set-credential', '--git-app', 'gapp_1', '--github-app-id', '5', '--private-key-file', 'k.pem', '--installation-id', '6'])).toEqual({
    kind: 'set-credential',
    connection: 'gapp_1',
    files: { kind: 'github_app', appId: '5', installationId: '6', privateKeyFile: 'k.pem' },
    json: false,
  });
  const usage: [() => unknown, RegExp][] = [
    [() => parseGitApps(['set-credential', '--token-file', 'f']), /needs --git-app <id>/],
    [() => parseGitApps(['set-credential', '--git-app', 'gapp_1']), /needs --token-file <file holding the token>, or for a GitHub App --github-app-id/],
    [() => parseGitApps(['set-credential', '--git-app', 'gapp_1', '--token-file', 'f', '--github-app-id', '5']), /not both/],
    [() => parseGitApps(['set-credential', '--git-app', 'gapp_1', '--github-app-id', '5', '--private-key-file', 'k.pem']), /also needs --installation-id/],
    [() => parseApps(['set-credential', '--app', 'app_1', '--github-app-id', '5']), /Unknown option '--github-app-id'/],
    [() => parseApps(['set-credential', '--app', 'app_1', '--token']), /Unknown option '--token'/],
  ];
  for (const [parse, message] of usage) {
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  }
  const run = await gitapps('set-credential', '--git-app', GITHUB);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('npm run gitapps -- set-credential --git-app <id> --github-app-id <n> --private-key-file <file> --installation-id <n> [--json]');
});

test("an organization's deletion removes its connections' credentials", async () => {
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const organizations = new OrganizationWriter(changes);
  const organization = await organizations.create({ name: 'Umbrella', adminEmail: 'alice@umbrella.test' });
  const { gitApp } = await new GitAppWriter(changes, box, providerCatalog()).create(organization.id, 'bitbucket', 'Bitbucket umbrella');
  await credentials.setCredential({ type: 'git_app', id: gitApp.id }, { kind: 'token', token: 'ATCTT3xFfGN0abcdef' });
  expect(await ConnectionCredential.count({ where: { organization_id: organization.id } })).toBe(1);
  await organizations.delete(organization.id, organization.id);
  expect(await ConnectionCredential.count({ where: { organization_id: organization.id } })).toBe(0);
  expect(await credentials.credentialOf(gitApp.id)).toBeUndefined();
});
