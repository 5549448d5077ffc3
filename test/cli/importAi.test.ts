import { parseCommand } from '../../scripts/import';
import { UsageError } from '../../scripts/cli';
import { unique } from '../support/common';
import { appCli, CliRun } from '../support/cli';
import { copilotUserRow, FakeGitHub } from '../support/peers/copilot/fakeGitHub';
import { DEMO, startTestApp, TestApp } from '../support/harness';

jest.setTimeout(120_000);

/** `npm run import -- ai` (docs/ai-vendors.md#how-a-pull-goes) as an operator runs it, against a fake GitHub. */
let t: TestApp;
let importer: (...args: string[]) => Promise<CliRun>;
let github: FakeGitHub;
beforeAll(async () => {
  t = await startTestApp();
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  importer = appCli(t, 'import', { WEBHOOK_ALLOW_PRIVATE: '1' });
  github = new FakeGitHub();
  await github.start();
});
afterAll(async () => {
  await github.stop();
  await t.close();
});

test('pulls the days asked and says what each became; exit 1 when a day was refused', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'copilot', {
    name: `Copilot ${unique()}`,
    vendor: { credential: 'github_pat_0123456789abcdefghij', account: { kind: 'organization', slug: 'acme-cli' }, baseUrl: github.base },
  });
  github.report('2026-09-01', [[copilotUserRow('ada-lovelace', 11, '2026-09-01'), copilotUserRow('unknown-login', 99, '2026-09-01')]]);
  const run = await importer('ai', '--app', app.id, '--since', '2026-09-01', '--until', '2026-09-02', '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(run.stdout)).toEqual({
    app_id: app.id,
    stored: [{ day: '2026-09-01', accounts: 2, matched: 1 }],
    without_report: ['2026-09-02'],
    refused: [],
    credential_refused: null,
    destination_refused: null,
    seconds: expect.any(Number),
  });

  github.report('2026-09-03', [['not json']]);
  const refused = await importer('ai', '--app', app.id, '--since', '2026-09-03', '--until', '2026-09-03');
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(/^Pulled app app_\w+ from 2026-09-03 to 2026-09-03 in [\d.]+ s: 0 days stored, 1 refused \(2026-09-03: Copilot's users report of 2026-09-03, file 1: line 1 is not JSON\)\.$/m);

  const jira = await importer('ai', '--app', DEMO.apps.acmeJira);
  expect(jira).toMatchObject({ code: 1, stderr: `import: App ${DEMO.apps.acmeJira} is jira's: it sends its data, nothing is pulled from it\n` });
});

test('the command line, parsed', () => {
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  expect(parseCommand(['ai', '--app', 'app_x', '--since', '2026-01-01', '--until', '2026-01-31'])).toEqual({ kind: 'ai', app: 'app_x', since: '2026-01-01', until: '2026-01-31', json: false });
  expect(parseCommand(['ai', '--app', 'app_x'])).toMatchObject({ until: yesterday });
  expect(() => parseCommand(['ai'])).toThrow(new UsageError('ai needs --app <id> (see npm run apps -- list)'));
  expect(() => parseCommand(['ai', '--app', 'a', '--since', '2026-02-30'])).toThrow(new UsageError('--since must be a day, YYYY-MM-DD; got "2026-02-30"'));
  expect(() => parseCommand(['ai', '--app', 'a', '--until', '2026-13-01'])).toThrow(new UsageError('--until must be a day, YYYY-MM-DD; got "2026-13-01"'));
  expect(() => parseCommand(['ai', '--app', 'a', '--since', '2026-02-02', '--until', '2026-02-01'])).toThrow(new UsageError('--since 2026-02-02 is after --until 2026-02-01'));
  expect(() => parseCommand(['ai', '--app', 'a', '--until', today])).toThrow(new UsageError(`--until ${today} has not ended yet (UTC); the last whole day is ${yesterday}`));
  expect(() => parseCommand(['ai', '--app', 'a', '--since', '2024-01-01', '--until', '2025-06-01'])).toThrow(/^at most 366 days a run/);
});
