import path from 'node:path';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { CliRun, runScript } from '../support/cli';
import fs from 'node:fs';
import os from 'node:os';
import { ApiToken, OtlpToken, ScimToken } from '../../db/models';
import { createSequelize, DatabaseOptions, describeDatabase } from '../../db/connection';
import { migrate } from '../../db/migrator';
import { generateToken, hashToken, isWellFormedToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { TokenInputError } from '../../src/auth/tokens/common';
import { expiryOf, parseCommand, UsageError } from '../../scripts/tokens';
import { sleep } from '../support/common';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine,
// so a test of ten commands needs more than jest's default here. The limit is for a command that hangs.
jest.setTimeout(180_000);

/**
 * The token CLI (docs/api.md#tokens-limits-and-headers) run as a child process, exactly as `npm run tokens -- ...` runs it, against the
 * test app's own database (its DATABASE_URL or SQLITE_PATH is passed in the child's environment).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

type Run = CliRun;

/** The CLI on the test app's database, or on the one `database` names. */
const cliOn = (database: DatabaseOptions, ...args: string[]): Promise<Run> => runScript('tokens', database, args);

const appDatabase = (): DatabaseOptions => ({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
const cli = (...args: string[]) => cliOn(appDatabase(), ...args);
/** The first line of every human-readable answer. */
const databaseLine = () => `Database: ${describeDatabase(appDatabase())}\n`;

async function createJson(...args: string[]): Promise<{ id: string; token: string; expires_at: string | null }> {
  const run = await cli('create', ...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}


describe('tokens create', () => {
  test('--json prints exactly {id, token, expires_at}; the token works against the API', async () => {
    const created = await createJson('--user', DEMO.emails.ada);
    expect(Object.keys(created)).toEqual(['id', 'token', 'expires_at']);
    expect(created.id).toMatch(/^tok_/);
    expect(isWellFormedToken(created.token)).toBe(true);
    expect(created.expires_at).toBeNull();

    const res = await t.get(`/v1/users/${DEMO.users.linus}`, created.token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(DEMO.users.linus);

    const row = await ApiToken.findByPk(created.id);
    expect(row!.user_id).toBe(DEMO.users.ada);
    expect(row!.token_hash).toBe(hashToken(created.token));
    expect(row!.name).toBe('API token');
  });

  test('--user accepts an id as well as an e-mail; --name labels the token', async () => {
    const created = await createJson('--user', DEMO.users.grace, '--name', 'CI pipeline');
    const row = await ApiToken.findByPk(created.id);
    expect(row!.user_id).toBe(DEMO.users.grace);
    expect(row!.name).toBe('CI pipeline');
  });

  test('--org/--team scope and --expires-in 1h', async () => {
    const before = Date.now();
    const created = await createJson(
      '--user', DEMO.emails.ada,
      '--org', DEMO.orgs.acme,
      '--team', DEMO.teams.platform,
      '--expires-in', '1h',
    );
    const after = Date.now();
    const expires = Date.parse(created.expires_at!);
    expect(expires).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(expires).toBeLessThanOrEqual(after + 3_600_000);

    // Naming a team narrows the organization's teams to it.
    const teams = await t.get(`/v1/organizations/${DEMO.orgs.acme}/teams`, created.token);
    expect(teams.status).toBe(200);
    expect(teams.body.data.map((x: { id: string }) => x.id)).toEqual([DEMO.teams.platform]);
    expect((await ApiToken.findByPk(created.id))!.expires_at!.toISOString()).toBe(created.expires_at);
  });

  test('an organization scope keeps the other organizations out', async () => {
    const created = await createJson('--user', DEMO.emails.margaret, '--org', DEMO.orgs.globex, '--expires-at', '2099-01-01T00:00:00Z');
    expect(created.expires_at).toBe('2099-01-01T00:00:00.000Z');
    expect((await t.get(`/v1/organizations/${DEMO.orgs.globex}`, created.token)).status).toBe(200);
    const acme = await t.get(`/v1/organizations/${DEMO.orgs.acme}`, created.token);
    expect(acme.status).toBe(403);
    expect(acme.body.error.code).toBe('FORBIDDEN');
  });

  test('without --json: a short text with the token, its id and expiry, and a shown-once reminder', async () => {
    const run = await cli('create', '--user', DEMO.emails.linus, '--expires-in', '90d');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const token = /\b(plat_[0-9A-Za-z]{36})\b/.exec(run.stdout)?.[1];
    expect(token).toBeDefined();
    const id = /\b(tok_[0-9a-f]+)\b/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    const row = await ApiToken.findByPk(id!);
    expect(row!.token_hash).toBe(hashToken(token!));
    expect(run.stdout).toContain(row!.expires_at!.toISOString());
    expect(run.stdout).toMatch(/only (this )?once/i);
    expect((await t.get(`/v1/users/${DEMO.users.linus}`, token!)).status).toBe(200);
  });
});

describe('tokens create-scim', () => {
  test('--json prints exactly {id, token}; the token is a SCIM token of the organization, refused on /v1', async () => {
    const run = await cli('create-scim', '--org', DEMO.orgs.globex, '--name', 'Okta', '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const created = JSON.parse(run.stdout) as { id: string; token: string };
    expect(Object.keys(created)).toEqual(['id', 'token']);
    expect(created.id).toMatch(/^stok_/);
    expect(isWellFormedToken(created.token, SCIM_TOKEN_PREFIX)).toBe(true);
    const row = (await ScimToken.findByPk(created.id))!;
    expect(row).toMatchObject({ organization_id: DEMO.orgs.globex, name: 'Okta', token_hash: hashToken(created.token), is_active: true });

    const v1 = await t.get('/v1/organizations', created.token);
    expect(v1.status).toBe(401);
    expect(v1.body.error.message).toMatch(/SCIM token, accepted on \/scim\/v2 only/);

    const listed = JSON.parse((await cli('list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(listed.find((i) => i.id === created.id)).toMatchObject({
      kind: 'scim',
      user_id: null,
      name: 'Okta',
      preview: row.preview,
      status: 'active',
      organizations: [DEMO.orgs.globex],
    });
    expect(JSON.stringify(listed)).not.toContain(created.token);
    // One user's tokens never include the organization's SCIM tokens.
    const ada = JSON.parse((await cli('list', '--user', DEMO.emails.ada, '--json')).stdout) as Array<{ kind: string }>;
    expect(ada.length).toBeGreaterThan(0);
    expect(ada.some((i) => i.kind === 'scim')).toBe(false);

    expect((await cli('revoke', created.id)).stdout).toContain(`Revoked token ${created.id}`);
    expect((await ScimToken.findByPk(created.id))!.is_active).toBe(false);
    expect((await cli('revoke', created.id)).stdout).toContain('was already revoked');
  });

  test('without --json: the token once, with where it goes; an unknown organization is bad input', async () => {
    const run = await cli('create-scim', '--org', DEMO.orgs.acme);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Created SCIM token stok_\w+ for organization org_acme/);
    expect(run.stdout).toMatch(/scim_[0-9A-Za-z]{36}/);
    expect(run.stdout).toContain('/scim/v2');

    const unknown = await cli('create-scim', '--org', 'org_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No organization with id 'org_nope'");
    expect((await cli('create-scim')).code).toBe(2);
  });
});

async function createOtlpJson(...args: string[]): Promise<{ id: string; token: string }> {
  const run = await cli('create-otlp', ...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

describe('tokens create-otlp', () => {
  test('--json prints exactly {id, token}; an OTLP token of the organization, bound to no user', async () => {
    const created = await createOtlpJson('--org', DEMO.orgs.acme);
    expect(Object.keys(created)).toEqual(['id', 'token']);
    expect(created.id).toMatch(/^otk_[0-9a-f]{20}$/);
    expect(isWellFormedToken(created.token, OTLP_TOKEN_PREFIX)).toBe(true);
    const row = (await OtlpToken.findByPk(created.id))!;
    expect(row).toMatchObject({
      organization_id: DEMO.orgs.acme,
      user_id: null,
      name: 'OTLP token',
      token_hash: hashToken(created.token),
      preview: `${created.token.slice(0, 9)}…${created.token.slice(-4)}`,
      is_active: true,
      last_used_at: null,
      revoked_at: null,
    });
    // Not an API token: /v1 does not take it.
    expect((await t.get('/v1/organizations', created.token)).status).toBe(401);
  });

  test('--user binds it to an active member, by e-mail or id; --name labels it', async () => {
    const byEmail = await createOtlpJson('--org', DEMO.orgs.acme, '--user', DEMO.emails.grace, '--name', 'Claude Code (grace)');
    expect(await OtlpToken.findByPk(byEmail.id)).toMatchObject({ organization_id: DEMO.orgs.acme, user_id: DEMO.users.grace, name: 'Claude Code (grace)' });
    const byId = await createOtlpJson('--org', DEMO.orgs.globex, '--user', DEMO.users.hedy);
    expect(await OtlpToken.findByPk(byId.id)).toMatchObject({ organization_id: DEMO.orgs.globex, user_id: DEMO.users.hedy });
  });

  test('without --json: the token once, its user, and where it goes', async () => {
    const run = await cli('create-otlp', '--org', DEMO.orgs.acme, '--user', DEMO.emails.linus);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.startsWith(databaseLine())).toBe(true);
    const id = /Created OTLP token (otk_[0-9a-f]{20}) for organization org_acme\n/.exec(run.stdout)?.[1];
    const token = /\b(otlp_[0-9A-Za-z]{36})\b/.exec(run.stdout)?.[1];
    expect((await OtlpToken.findByPk(id!))!.token_hash).toBe(hashToken(token!));
    expect(run.stdout).toContain(`user:    ${DEMO.users.linus}\n`);
    expect(run.stdout).toContain('/otlp');
    expect(run.stdout).toContain(`managed-settings --org ${DEMO.orgs.acme}`);
    expect(run.stdout).toMatch(/only (this )?once/i);

    const unbound = await cli('create-otlp', '--org', DEMO.orgs.globex);
    expect(unbound.stdout).toMatch(/user: +none/);
  });

  test.each([
    ['an unknown organization', ['--org', 'org_nope'], "No organization with id 'org_nope'"],
    ['an unknown user', ['--org', DEMO.orgs.acme, '--user', 'nobody@demo.test'], "No user with e-mail 'nobody@demo.test'"],
    ['a user of another organization', ['--org', DEMO.orgs.acme, '--user', DEMO.emails.outsider], `User ${DEMO.users.outsider} is not an active member of organization '${DEMO.orgs.acme}'`],
    ['a user of no organization named', ['--org', DEMO.orgs.globex, '--user', DEMO.users.ada], `User ${DEMO.users.ada} is not an active member of organization '${DEMO.orgs.globex}'`],
  ])('%s → the reason on stderr, exit 1, nothing created', async (_name, args, message) => {
    const before = await OtlpToken.count();
    const run = await cli('create-otlp', ...args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(databaseLine());
    expect(run.stderr).toBe(`tokens: ${message}\n`);
    expect(await OtlpToken.count()).toBe(before);
  });
});

describe('tokens list and revoke with OTLP tokens', () => {
  test('listed as kind otlp with their organization and user; one user\'s list holds the tokens bound to them', async () => {
    const unbound = await createOtlpJson('--org', DEMO.orgs.globex, '--name', 'listed otlp');
    const bound = await createOtlpJson('--org', DEMO.orgs.globex, '--user', DEMO.emails.outsider);
    const [unboundRow, boundRow] = [(await OtlpToken.findByPk(unbound.id))!, (await OtlpToken.findByPk(bound.id))!];

    const all = await cli('list', '--json');
    expect(all.code).toBe(0);
    for (const secret of [unbound.token, bound.token, unboundRow.token_hash, boundRow.token_hash]) expect(all.stdout).not.toContain(secret);
    const items = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    expect(items.find((i) => i.id === unbound.id)).toEqual({
      id: unbound.id,
      kind: 'otlp',
      user_id: null,
      name: 'listed otlp',
      preview: unboundRow.preview,
      status: 'active',
      expires_at: null,
      last_used_at: null,
      created_at: unboundRow.created_at.toISOString(),
      organizations: [DEMO.orgs.globex],
      teams: [],
    });
    expect(items.find((i) => i.id === bound.id)).toMatchObject({ kind: 'otlp', user_id: DEMO.users.outsider, organizations: [DEMO.orgs.globex] });

    const outsider = JSON.parse((await cli('list', '--user', DEMO.emails.outsider, '--json')).stdout) as Array<{ id: string; user_id: string }>;
    expect(outsider.map((i) => i.id)).toContain(bound.id);
    expect(outsider.map((i) => i.id)).not.toContain(unbound.id);
    expect(outsider.every((i) => i.user_id === DEMO.users.outsider)).toBe(true);

    const text = await cli('list');
    const line = text.stdout.split('\n').find((l) => l.startsWith(`${bound.id} `))!;
    expect(line.split(/\s{2,}/)).toEqual([bound.id, 'otlp', DEMO.users.outsider, 'OTLP token', boundRow.preview, 'active', 'never', 'never', boundRow.created_at.toISOString(), `orgs ${DEMO.orgs.globex}`]);
  });

  test('revoke deactivates it (once); list shows it revoked', async () => {
    const created = await createOtlpJson('--org', DEMO.orgs.acme);
    const run = await cli('revoke', created.id);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`${databaseLine()}Revoked token ${created.id}; it stops working within 5 seconds on every instance.\n`);
    const row = (await OtlpToken.findByPk(created.id))!;
    expect(row.is_active).toBe(false);
    expect(row.revoked_at).toBeInstanceOf(Date);

    expect((await cli('revoke', created.id)).stdout).toContain(`Token ${created.id} was already revoked.`);
    expect((await OtlpToken.findByPk(created.id))!.revoked_at).toEqual(row.revoked_at);
    const listed = JSON.parse((await cli('list', '--json')).stdout) as Array<{ id: string; status: string }>;
    expect(listed.find((i) => i.id === created.id)?.status).toBe('revoked');

    const unknown = await cli('revoke', 'otk_doesnotexist');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No token with id 'otk_doesnotexist'");
  });
});

describe('tokens managed-settings', () => {
  const settings = (token: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
    runScript('tokens', appDatabase(), ['managed-settings', '--org', DEMO.orgs.acme, '--token', token, ...args], env);
  const expected = (endpoint: string, token: string) => ({
    env: {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token}`,
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
    },
  });

  test('prints only the JSON of the env block, with the endpoint under PUBLIC_URL', async () => {
    const { token } = await createOtlpJson('--org', DEMO.orgs.acme);
    const run = await settings(token, { PUBLIC_URL: 'https://metrics.example.com/' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`${JSON.stringify(expected('https://metrics.example.com/otlp', token), null, 2)}\n`);
    expect(Object.keys(JSON.parse(run.stdout).env)).toEqual(Object.keys(expected('', token).env));
  });

  test('without PUBLIC_URL the endpoint is http://localhost:$PORT/otlp', async () => {
    const { token } = await createOtlpJson('--org', DEMO.orgs.acme);
    const run = await settings(token, { PUBLIC_URL: '', PORT: '4318' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(expected('http://localhost:4318/otlp', token));
  });

  test('a token bound to a user works, with a warning that everything sent is theirs', async () => {
    const { id, token } = await createOtlpJson('--org', DEMO.orgs.acme, '--user', DEMO.emails.barbara);
    const run = await settings(token, { PUBLIC_URL: 'https://metrics.example.com' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expected('https://metrics.example.com/otlp', token));
    expect(run.stderr).toMatch(new RegExp(`^tokens: warning: OTLP token ${id} is bound to ${DEMO.users.barbara}: .*\\n$`));
  });

  /** Exit 2 with the reason and the usage, nothing on stdout, and never the token in the answer. */
  async function expectRefused(token: string, message: string, org: string = DEMO.orgs.acme): Promise<void> {
    const run = await runScript('tokens', appDatabase(), ['managed-settings', '--org', org, '--token', token]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith(`tokens: ${message}\n\nUsage:`)).toBe(true);
    expect(run.stderr).not.toContain(token);
  }

  test('refuses what is not a well-formed OTLP token, before any database lookup', async () => {
    const wellFormed = generateToken(OTLP_TOKEN_PREFIX);
    const badChecksum = `${wellFormed.slice(0, -1)}${wellFormed.endsWith('0') ? '1' : '0'}`;
    const apiToken = (await createJson('--user', DEMO.emails.ada)).token;
    for (const token of ['otlp_abc', badChecksum, apiToken, generateToken(SCIM_TOKEN_PREFIX)]) {
      await expectRefused(token, '--token must be an OTLP token as create-otlp prints it (otlp_ and 36 letters and digits)');
    }
  });

  test('refuses an unknown token, a revoked one and one of another organization', async () => {
    await expectRefused(generateToken(OTLP_TOKEN_PREFIX), 'No OTLP token matches --token (create one with create-otlp)');

    const revoked = await createOtlpJson('--org', DEMO.orgs.acme);
    expect((await cli('revoke', revoked.id)).code).toBe(0);
    await expectRefused(revoked.token, `--token is OTLP token ${revoked.id}, which has been revoked`);

    const globex = await createOtlpJson('--org', DEMO.orgs.globex);
    await expectRefused(globex.token, `--token is OTLP token ${globex.id} of another organization, not of '${DEMO.orgs.acme}'`);
    await expectRefused(globex.token, `--token is OTLP token ${globex.id} of another organization, not of 'org_nope'`, 'org_nope');
  });
});

describe('tokens list', () => {
  test('shows preview and status, never the token or its hash', async () => {
    const created = await createJson('--user', DEMO.emails.hedy, '--name', 'listed');
    const row = (await ApiToken.findByPk(created.id))!;

    const json = await cli('list', '--user', DEMO.emails.hedy, '--json');
    expect(json.code).toBe(0);
    expect(json.stdout).not.toContain(created.token);
    expect(json.stdout).not.toContain(row.token_hash);
    const items = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(items.every((i) => i.user_id === DEMO.users.hedy)).toBe(true);
    expect(items.find((i) => i.id === created.id)).toMatchObject({
      id: created.id,
      user_id: DEMO.users.hedy,
      name: 'listed',
      preview: row.preview,
      status: 'active',
      expires_at: null,
      organizations: [],
      teams: [],
    });

    const text = await cli('list');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(created.id);
    expect(text.stdout).toContain(row.preview);
    expect(text.stdout).toMatch(/\bactive\b/);
    expect(text.stdout).not.toContain(created.token);
    expect(text.stdout).not.toContain(row.token_hash);
  });

  test('an unknown --user is bad input (exit 1)', async () => {
    const run = await cli('list', '--user', 'nobody@demo.test');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No user with e-mail 'nobody@demo.test'");
  });
});

describe('tokens revoke', () => {
  test('the revoked token is 401 within ~6 s; list shows it as revoked', async () => {
    const created = await createJson('--user', DEMO.emails.outsider);
    const path = `/v1/users/${DEMO.users.outsider}`;
    expect((await t.get(path, created.token)).status).toBe(200);

    const run = await cli('revoke', created.id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(created.id);

    let res = await t.get(path, created.token);
    for (const until = Date.now() + 6_500; res.status === 200 && Date.now() < until; ) {
      await sleep(200);
      res = await t.get(path, created.token);
    }
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', error: { code: 'UNAUTHORIZED', message: 'API token has been revoked' } });

    const list = JSON.parse((await cli('list', '--user', DEMO.users.outsider, '--json')).stdout) as Array<{ id: string; status: string }>;
    expect(list.find((i) => i.id === created.id)?.status).toBe('revoked');
  });

  test('an unknown token id is bad input (exit 1)', async () => {
    const run = await cli('revoke', 'tok_doesnotexist');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No token with id 'tok_doesnotexist'");
  });
});

describe('errors', () => {
  test.each([
    ['an unknown flag', ['create', '--user', DEMO.emails.ada, '--bogus'], "Unknown option '--bogus'"],
    ['both --expires-in and --expires-at', ['create', '--user', DEMO.emails.ada, '--expires-in', '1h', '--expires-at', '2099-01-01'], 'give either --expires-in or --expires-at, not both'],
    ['no command', [], 'a command is required'],
  ])('%s → usage on stderr, exit 2, nothing created', async (_name, args, message) => {
    const before = await ApiToken.count();
    const run = await cli(...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^tokens: /);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage:');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(await ApiToken.count()).toBe(before);
  });

  test('every other usage mistake is a UsageError of the parser (the exit-2 path above)', () => {
    const mistakes: string[][] = [
      ['rotate'],
      ['create', '--user'],
      ['create', '--json'],
      ['create', '--user', ''],
      ['create', '--user', DEMO.emails.ada, 'extra'],
      ['create', '--user', DEMO.emails.ada, '--json=yes'],
      ['create', '--user', DEMO.emails.ada, '--expires-at', '2099-01-01', '--expires-in', '1d'],
      ['list', 'extra'],
      ['list', '--user'],
      ['list', '--org', DEMO.orgs.acme],
      ['revoke'],
      ['revoke', 'tok_a', 'tok_b'],
      ['revoke', '--json', 'tok_a'],
      ['create-scim'],
      ['create-scim', '--org', ''],
      ['create-scim', '--org', 'org_acme', '--user', 'ada@demo.test'],
      ['create-otlp'],
      ['create-otlp', '--user', 'ada@demo.test'],
      ['create-otlp', '--org', ''],
      ['create-otlp', '--org', 'org_acme', '--user', ''],
      ['create-otlp', '--org', 'org_acme', '--team', 'team_platform'],
      ['create-otlp', '--org', 'org_acme', 'extra'],
      ['managed-settings'],
      ['managed-settings', '--org', 'org_acme'],
      ['managed-settings', '--token', generateToken(OTLP_TOKEN_PREFIX)],
      ['managed-settings', '--org', 'org_acme', '--token', ''],
      ['managed-settings', '--org', 'org_acme', '--token', 'otlp_x'],
      ['managed-settings', '--org', 'org_acme', '--token', generateToken(OTLP_TOKEN_PREFIX), '--json'],
    ];
    for (const argv of mistakes) {
      expect(() => parseCommand(argv)).toThrow(UsageError);
    }
    expect(parseCommand(['create', '--user', 'a@b.c', '--org', 'o1', '--org', 'o2', '--team', 't1', '--expires-in', '12h', '--json'])).toEqual({
      kind: 'create',
      user: 'a@b.c',
      name: undefined,
      expiresIn: '12h',
      expiresAt: undefined,
      orgs: ['o1', 'o2'],
      teams: ['t1'],
      json: true,
    });
    expect(parseCommand(['list', '--user', 'usr_ada'])).toEqual({ kind: 'list', user: 'usr_ada', json: false });
    expect(parseCommand(['revoke', 'tok_1'])).toEqual({ kind: 'revoke', id: 'tok_1' });
    expect(parseCommand(['create-scim', '--org', 'org_acme', '--name', 'Entra ID'])).toEqual({ kind: 'create-scim', org: 'org_acme', name: 'Entra ID', json: false });
    expect(parseCommand(['create-otlp', '--org', 'org_acme', '--user', 'ada@demo.test', '--json'])).toEqual({
      kind: 'create-otlp',
      org: 'org_acme',
      user: 'ada@demo.test',
      name: undefined,
      json: true,
    });
    const otlp = generateToken(OTLP_TOKEN_PREFIX);
    expect(parseCommand(['managed-settings', '--org', 'org_acme', '--token', otlp])).toEqual({ kind: 'managed-settings', org: 'org_acme', token: otlp });
    expect(parseCommand(['help'])).toEqual({ kind: 'help' });
  });

  test('expiry arguments', () => {
    const now = new Date('2026-01-15T10:00:00.000Z');
    expect(expiryOf({}, now)).toBeNull();
    expect(expiryOf({ expiresIn: '90d' }, now)!.toISOString()).toBe('2026-04-15T10:00:00.000Z');
    expect(expiryOf({ expiresIn: '12h' }, now)!.toISOString()).toBe('2026-01-15T22:00:00.000Z');
    expect(expiryOf({ expiresIn: '30m' }, now)!.toISOString()).toBe('2026-01-15T10:30:00.000Z');
    expect(expiryOf({ expiresIn: '10s' }, now)!.toISOString()).toBe('2026-01-15T10:00:10.000Z');
    expect(expiryOf({ expiresAt: '2026-02-01' }, now)!.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(expiryOf({ expiresAt: '2026-02-01T12:30:00+02:00' }, now)!.toISOString()).toBe('2026-02-01T10:30:00.000Z');
    for (const expiresIn of ['0d', '-1h', '1w', '1.5h', 'h', '']) {
      expect(() => expiryOf({ expiresIn }, now)).toThrow(TokenInputError);
    }
    // A date-time without an offset would depend on the machine's time zone: rejected.
    for (const expiresAt of ['2026-02-01T12:30:00', 'tomorrow', '2026-02-30', '']) {
      expect(() => expiryOf({ expiresAt }, now)).toThrow(TokenInputError);
    }
  });

  test.each([
    ['an unknown user', ['--user', 'nobody@demo.test'], "No user with e-mail 'nobody@demo.test'"],
    ['an organization the user is not in', ['--user', DEMO.emails.ada, '--org', DEMO.orgs.globex], `User ${DEMO.users.ada} is not a member of organization '${DEMO.orgs.globex}'`],
    ['an expiry in the past', ['--user', DEMO.emails.ada, '--expires-at', '2020-01-01T00:00:00Z'], 'The expiry must be in the future'],
    ['an unparsable expiry', ['--user', DEMO.emails.ada, '--expires-at', 'tomorrow'], "Invalid --expires-at 'tomorrow'"],
  ])('create with %s → the reason on stderr, exit 1, nothing created', async (_name, args, message) => {
    const before = await ApiToken.count();
    const run = await cli('create', ...args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(databaseLine());
    expect(run.stderr.startsWith(`tokens: ${message}`)).toBe(true);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1); // one line, no stack
    expect(await ApiToken.count()).toBe(before);
  });

  test('help prints the usage and exits 0', async () => {
    const run = await cli('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('npm run tokens -- create --user <id|email>');
    expect(run.stdout).toContain('npm run tokens -- create-otlp --org <id> [--user <id|email>] [--name N] [--json]');
    expect(run.stdout).toContain('npm run tokens -- managed-settings --org <id> --token otlp_…');
  });
});

describe('which database', () => {
  test('every human-readable answer starts by naming the database, without credentials', async () => {
    const run = await cli('list');
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(databaseLine())).toBe(true);
    expect(databaseLine()).toMatch(t.config.DATABASE_URL ? /^Database: MySQL [^@\s]+\/\w+\n$/ : /^Database: SQLite \/.+\.sqlite\n$/);
    expect(run.stderr).toBe('');
  });

  test('a SQLITE_PATH with no database file → exit 1 naming the path; no empty database is created', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-tokens-'));
    const missing = path.join(dir, 'typo.sqlite');
    try {
      const run = await cliOn({ sqlitePath: missing }, 'list');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `tokens: no database at SQLite ${missing}. Point SQLITE_PATH (or DATABASE_URL) at the server's database, or run "npm start" once to create the embedded one.\n`,
      );
      expect(fs.existsSync(missing)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a database without users → a warning on stderr, then the answer', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-tokens-'));
    const empty = path.join(dir, 'empty.sqlite');
    try {
      const sequelize = createSequelize({ sqlitePath: empty });
      await migrate(sequelize);
      await sequelize.close();
      const run = await cliOn({ sqlitePath: empty }, 'list');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`Database: SQLite ${empty}\nNo tokens.\n`);
      expect(run.stderr).toBe(`tokens: warning: SQLite ${empty} has no users; is it the database the server uses?\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
