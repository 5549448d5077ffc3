import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { UserApp } from '../../db/models';
import { parseCommand } from '../../scripts/import';
import { UsageError } from '../../scripts/cli';
import { appCli } from '../support/cli';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { payload } from '../support/peers/slack/deliveries';

/**
 * `npm run import -- slack` (docs/conversations.md#linking-accounts) as an operator runs it, against a local
 * stand-in for Slack's Web API: `users.list` pages in Slack's documented envelope (`ok`, `members`,
 * `response_metadata.next_cursor`), each member the user object of Slack's documented `users.info` answer
 * (test/support/peers/slack/usersInfo.json) with its id and e-mail made this test's, a rate limit to wait out.
 */
jest.setTimeout(120_000);

const TOKEN = `xoxb-${randomBytes(12).toString('hex')}`;
const documented = payload('usersInfo.json').user;
/** Slack's documented user, made someone of this workspace; `over` names what changes. */
const member = (id: string, email: string | null, over: Record<string, unknown> = {}) => ({ ...documented, id, ...over, profile: { ...documented.profile, email: email ?? undefined } });

const PAGES = [
  { ok: true, members: [member('W0ADA00001', DEMO.emails.ada), member('W0BOT00001', null, { is_bot: true, name: 'deploybot' }), member('W0GONE0001', DEMO.emails.grace, { deleted: true })], response_metadata: { next_cursor: 'dXNlcjpXMEdPTkUwMDAx' } },
  { ok: true, members: [member('W0GRACE001', DEMO.emails.grace.toUpperCase()), member('W0STRANGER', 'someone@elsewhere.example')], response_metadata: { next_cursor: '' } },
];

let t: TestApp;
let importer: ReturnType<typeof appCli>;
let server: http.Server;
let baseUrl: string;
let tokenFile: string;
const seen: { authorization?: string; url: string }[] = [];
let limitOnce = false;

beforeAll(async () => {
  t = await startTestApp();
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  importer = appCli(t, 'import', { WEBHOOK_ALLOW_PRIVATE: '1' });
  server = http.createServer((req, res) => {
    seen.push({ authorization: req.headers.authorization, url: req.url ?? '' });
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(json));
    };
    const url = new URL(req.url ?? '/', 'http://slack.test');
    if (url.pathname !== '/api/users.list') return answer(404, { ok: false, error: 'unknown_method' });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(200, { ok: false, error: 'invalid_auth' });
    if (limitOnce && url.searchParams.get('cursor')) {
      limitOnce = false;
      return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
    }
    answer(200, url.searchParams.get('cursor') === PAGES[0].response_metadata.next_cursor ? PAGES[1] : PAGES[0]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  tokenFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'slack-token-')), 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(path.dirname(tokenFile), { recursive: true, force: true });
  await t.close();
});

const slackApp = async () => (await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name: `Slack ${unique()}` })).app.id;

test('members linked by e-mail across pages, a rate limit waited out; bots, deleted accounts and strangers left alone; run again, nothing doubles', async () => {
  const appId = await slackApp();
  seen.length = 0;
  limitOnce = true;
  const first = await importer('slack', '--app', appId, '--token-file', tokenFile, '--base-url', baseUrl, '--json');
  expect(first).toMatchObject({ code: 0 });
  expect(first.stderr).toContain('Slack asks to wait 1 s (rate limit); waiting');
  expect(JSON.parse(first.stdout)).toEqual({ app_id: appId, accounts: 5, linked: 2, unchanged: 0, unmatched: 3, seconds: expect.any(Number) });
  expect(seen.map((s) => new URL(s.url, 'http://x').searchParams.get('cursor'))).toEqual([null, 'dXNlcjpXMEdPTkUwMDAx', 'dXNlcjpXMEdPTkUwMDAx']);
  expect(seen.every((s) => s.authorization === `Bearer ${TOKEN}` && s.url.includes('limit=200'))).toBe(true);
  const links = await UserApp.findAll({ where: { app_id: appId }, order: [['external_user_id', 'ASC']] });
  expect(links.map((l) => [l.external_user_id, l.user_id])).toEqual([['W0ADA00001', DEMO.users.ada], ['W0GRACE001', DEMO.users.grace]]);

  const again = await importer('slack', '--app', appId, '--token-file', tokenFile, '--base-url', baseUrl);
  expect(again).toMatchObject({ code: 0 });
  expect(again.stdout).toMatch(new RegExp(`Read 5 Slack accounts for app ${appId} in [0-9.]+ s: 0 linked to members, 2 already linked, 3 without a member's e-mail`));
  expect(await UserApp.count({ where: { app_id: appId } })).toBe(2);
});

test("a token Slack refuses, an unknown app, another provider's app or a disabled one: exit 1 saying what to fix, nothing linked", async () => {
  const appId = await slackApp();
  const wrong = path.join(path.dirname(tokenFile), 'wrong');
  fs.writeFileSync(wrong, 'xoxb-wrong\n');
  const refused = await importer('slack', '--app', appId, '--token-file', wrong, '--base-url', baseUrl);
  expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('import: Slack refused the token (invalid_auth); check --token-file')]);
  const unknown = await importer('slack', '--app', 'app_nope', '--token-file', tokenFile, '--base-url', baseUrl);
  expect([unknown.code, unknown.stderr]).toEqual([1, 'import: No app app_nope (see npm run apps -- list)\n']);
  const jira = await importer('slack', '--app', DEMO.apps.acmeJira, '--token-file', tokenFile, '--base-url', baseUrl);
  expect([jira.code, jira.stderr]).toEqual([1, `import: App ${DEMO.apps.acmeJira} is a jira app; this import reads Slack\n`]);
  await t.runtime.writers.apps.setActive(appId, false);
  const disabled = await importer('slack', '--app', appId, '--token-file', tokenFile, '--base-url', baseUrl);
  expect([disabled.code, disabled.stderr]).toEqual([1, `import: App ${appId} is disabled; enable it first (npm run apps -- enable ${appId})\n`]);
  expect(await UserApp.count({ where: { app_id: appId } })).toBe(0);
});

test('usage: --app is required; without --token-file it is the history import; --base-url must be http(s)', () => {
  expect(() => parseCommand(['slack', '--token-file', 'f'])).toThrow(new UsageError('slack needs --app <id> (see npm run apps -- list)'));
  expect(parseCommand(['slack', '--app', 'app_x'])).toEqual({ kind: 'history', provider: 'slack', connection: { type: 'app', id: 'app_x' }, json: false });
  expect(() => parseCommand(['slack', '--app', 'app_x', '--token-file', 'f', '--base-url', 'ftp://x'])).toThrow(/--base-url must be an http\(s\) URL/);
  expect(parseCommand(['slack', '--app', 'app_x', '--token-file', 'f'])).toEqual({ kind: 'slack', app: 'app_x', tokenFile: 'f', baseUrl: 'https://slack.com/api', json: false });
});
