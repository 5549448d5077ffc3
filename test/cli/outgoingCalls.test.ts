import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unique } from '../support/common';
import { appCli, CliRun } from '../support/cli';
import { ScriptedPeer } from '../support/peers/scriptedPeer';
import { DEMO, startTestApp, TestApp } from '../support/harness';

jest.setTimeout(120_000);

/**
 * Where the operator's commands let the service call (docs/operating.md#outgoing-calls): a base URL given to
 * `apps create` or to an import is refused when it is plain http or at a private address, with a message saying
 * what to fix, unless the operator allows private addresses (WEBHOOK_ALLOW_PRIVATE=1, as every other test of a fake
 * on loopback runs); refused, nothing is asked of it.
 */
let t: TestApp;
let peer: ScriptedPeer;
let dir: string;
const ALLOWED = { WEBHOOK_ALLOW_PRIVATE: '1' };
const STRICT = { WEBHOOK_ALLOW_PRIVATE: '0' };
beforeAll(async () => {
  t = await startTestApp();
  peer = new ScriptedPeer(() => ({ status: 500 }));
  await peer.start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outgoing-'));
});
afterAll(async () => {
  await peer.stop();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const secretFile = (value: string) => {
  const file = path.join(dir, unique());
  fs.writeFileSync(file, value);
  return file;
};
const said = (run: CliRun) => [run.code, run.stderr];

test('apps create --base-url: plain http and private addresses refused without the allowance, saying why; accepted with it', async () => {
  const create = (env: NodeJS.ProcessEnv, baseUrl: string) =>
    appCli(t, 'apps', env)('create', '--org', DEMO.orgs.acme, '--provider', 'cursor', '--name', `Cursor ${unique()}`, '--token-file', secretFile('key_cursor_0123456789'), '--base-url', baseUrl);
  expect(said(await create(STRICT, `${peer.base}/cursor/`))).toEqual([
    1,
    `apps: The base URL ${peer.base}/cursor is refused: ${peer.base} is plain http; outgoing calls use https:// (http:// only to a loopback or private address, when WEBHOOK_ALLOW_PRIVATE=1)\n`,
  ]);
  expect(said(await create(STRICT, 'https://169.254.169.254/latest'))).toEqual([
    1,
    'apps: The base URL https://169.254.169.254/latest is refused: 169.254.169.254 is a linkLocal address; outgoing calls go only to public addresses\n',
  ]);
  expect(said(await create(STRICT, 'https://10.0.0.8/api/v3'))).toEqual([1, 'apps: The base URL https://10.0.0.8/api/v3 is refused: 10.0.0.8 is a private address; outgoing calls go only to public addresses\n']);
  // With the allowance: loopback over plain http (a test's fake), and private addresses over https.
  expect((await create(ALLOWED, `${peer.base}/cursor/`)).code).toBe(0);
  expect((await create(ALLOWED, 'https://10.0.0.8/api/v3')).code).toBe(0);
  // Plain http across the internet never.
  expect(said(await create(ALLOWED, 'http://8.8.8.8/cursor'))).toEqual([1, 'apps: The base URL http://8.8.8.8/cursor is refused: 8.8.8.8 is a public address, called only over https://\n']);
  expect(peer.requests).toEqual([]);
});

test('import ai: an app whose base URL is refused now pulls nothing and says why (exit 1)', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'claude_code', { name: `Claude ${unique()}`, vendor: { credential: 'sk-ant-admin01-0123456789', baseUrl: `${peer.base}/anthropic` } });
  const run = await appCli(t, 'import', STRICT)('ai', '--app', app.id, '--since', '2026-10-01', '--until', '2026-10-02');
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(
    new RegExp(`^Pulled app ${app.id} from 2026-10-01 to 2026-10-02 in [\\d.]+ s: The base URL ${peer.base}/anthropic is refused: ${peer.base} is plain http; outgoing calls use https://`, 'm'),
  );
  expect(peer.requests).toEqual([]);
});

test('import jira, linear and slack: a refused --base-url or --site stops before anything is read', async () => {
  const importer = appCli(t, 'import', STRICT);
  const refusal = (flag: string, url: string) => `import: ${flag} ${url} is refused: ${new URL(url).origin} is plain http; outgoing calls use https:// (http:// only to a loopback or private address, when WEBHOOK_ALLOW_PRIVATE=1)\n`;
  const jiraToken = secretFile('atlassian-api-token-0123456789');
  expect(said(await importer('jira', '--app', DEMO.apps.acmeJira, '--site', 'https://acme.atlassian.net', '--email', 'ada@example.com', '--token-file', jiraToken, '--base-url', peer.base))).toEqual([
    1,
    refusal('--base-url', peer.base),
  ]);
  expect(said(await importer('jira', '--app', DEMO.apps.acmeJira, '--site', peer.base, '--email', 'ada@example.com', '--token-file', jiraToken))).toEqual([1, refusal('--site', peer.base)]);
  expect(said(await importer('linear', '--app', DEMO.apps.acmeLinear, '--key-file', secretFile('lin_api_0123456789'), '--base-url', `${peer.base}/linear`))).toEqual([
    1,
    refusal('--base-url', `${peer.base}/linear`),
  ]);
  expect(said(await importer('slack', '--app', DEMO.apps.acmeSlack, '--token-file', secretFile('xoxb-0123456789'), '--base-url', `${peer.base}/slack`))).toEqual([
    1,
    refusal('--base-url', `${peer.base}/slack`),
  ]);
  expect(peer.requests).toEqual([]);
});
