import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Task, TaskStatusChange } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import { parseCommand } from '../../scripts/import';
import { UsageError } from '../../scripts/cli';
import { appCli } from '../support/cli';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { authenticationFailed, canceledIssue, issuePages, parentIssue, rateLimited, subIssue, subIssueHistoryRest } from '../support/peers/linear/graphql';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * `npm run import -- linear` (docs/trackers.md#linear) as an operator runs it, against a local stand-in for Linear's
 * GraphQL API answering its documented shapes (test/support/peers/linear/graphql.ts): two pages of issues, a history
 * longer than one page, and a rate limit to wait out.
 */
jest.setTimeout(180_000);

const API_KEY = `lin_api_${randomBytes(20).toString('hex')}`;

interface Seen {
  authorization: string | undefined;
  operation: string;
  variables: Record<string, any>;
}

/** Linear's API as far as the importer uses it; `limits` refuses the next request for a page of issues, once each. */
function fakeLinear() {
  const seen: Seen[] = [];
  const limits: { cursor: string | null; answer: '429' | 'RATELIMITED' }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { query, variables } = JSON.parse(body);
      const operation = /query (\w+)/.exec(query)?.[1] ?? '';
      seen.push({ authorization: req.headers.authorization, operation, variables });
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(json));
      };
      if (req.url !== '/graphql' || req.method !== 'POST') return answer(404, { errors: [{ message: 'Not found' }] });
      if (req.headers.authorization !== API_KEY) return answer(400, authenticationFailed);
      const at = operation === 'Issues' ? limits.findIndex((l) => l.cursor === variables.cursor) : -1;
      const limit = at >= 0 ? limits.splice(at, 1)[0].answer : undefined;
      if (limit === '429') return answer(429, rateLimited, { 'retry-after': '1' });
      if (limit === 'RATELIMITED') return answer(400, rateLimited, { 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-requests-reset': String(Date.now() + 1000) });
      if (operation === 'IssueHistory') {
        expect(variables).toEqual({ id: subIssue.id, cursor: 'por-2-history-2' });
        return answer(200, { data: { issue: { history: subIssueHistoryRest } } });
      }
      return answer(200, { data: variables.cursor === 'page-2' ? issuePages[1] : issuePages[0] });
    });
  });
  return { server, seen, limits };
}

let t: TestApp;
let importer: ReturnType<typeof appCli>;
let apps: AppWriter;
let linear: ReturnType<typeof fakeLinear>;
let baseUrl: string;
let keyFile: string;

beforeAll(async () => {
  t = await startTestApp();
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  importer = appCli(t, 'import', { WEBHOOK_ALLOW_PRIVATE: '1' });
  apps = new AppWriter(ChangeRunner.for(t.runtime.sequelize), new SecretBox(randomBytes(32)), providerCatalog());
  linear = fakeLinear();
  await new Promise<void>((resolve) => linear.server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(linear.server.address() as AddressInfo).port}`;
  keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'linear-key-')), 'key');
  fs.writeFileSync(keyFile, `${API_KEY}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await new Promise((resolve) => linear.server.close(resolve));
  fs.rmSync(path.dirname(keyFile), { recursive: true, force: true });
  await t.close();
});

const linearApp = async () => (await apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${randomUUID().slice(0, 8)}` })).app.id;
const taskOf = (appId: string, issue: Record<string, any>) => Task.findOne({ where: { app_id: appId, external_id: issue.id } });

test('two pages with a rate limit waited out; run again, nothing doubles', async () => {
  const appId = await linearApp();
  linear.seen.length = 0;
  // A 429 with Retry-After answers the second page's first request: the first page is stored by then.
  linear.limits.push({ cursor: 'page-2', answer: '429' });
  const first = await importer('linear', '--app', appId, '--key-file', keyFile, '--base-url', baseUrl, '--json');
  expect(first).toMatchObject({ code: 0 });
  expect(first.stderr).toContain('Linear asks to wait 1 s (rate limit); waiting');
  expect(JSON.parse(first.stdout)).toEqual({ app_id: appId, issues: 3, created: 3, updated: 0, unchanged: 0, pages: 2, seconds: expect.any(Number) });
  expect(first.stderr).toContain('page 2: 1 issues (3 read, 3 created, 0 updated)');
  expect(linear.seen.map((s) => [s.operation, s.variables.cursor])).toEqual([
    ['Issues', null],
    ['IssueHistory', 'por-2-history-2'],
    ['Issues', 'page-2'],
    ['Issues', 'page-2'],
  ]);
  expect(linear.seen.every((s) => s.authorization === API_KEY)).toBe(true);
  expect(linear.seen[0].variables).toEqual({ cursor: null, filter: null });

  const parent = (await taskOf(appId, parentIssue))!;
  const sub = (await taskOf(appId, subIssue))!;
  const canceled = (await taskOf(appId, canceledIssue))!;
  expect(parent).toMatchObject({ board_key: 'POR', status: 'done', status_name: 'Done', story_points: 5, type: 'task', status_changes: 2 });
  expect(parent.completed_at).toEqual(new Date('2024-05-18T10:00:00.000Z'));
  expect(sub).toMatchObject({ status: 'active', type: 'bug', story_points: 2, parent_id: parent.id, assignee_id: DEMO.users.linus, status_changes: 2 });
  expect(sub.started_at).toEqual(new Date('2024-05-17T09:27:40.077Z'));
  expect(canceled).toMatchObject({ status: 'canceled', completed_at: null, type: 'task' });
  const moves = await TaskStatusChange.findAll({ where: { task_id: sub.id }, order: [['at', 'ASC']] });
  expect(moves.map((m) => [m.external_id, m.from_name, m.to_name, m.from_status, m.to_status])).toEqual([
    ['1b7f5068-4011-4b66-8e4f-3c902d8bae12', 'Backlog', 'Todo', 'backlog', 'backlog'],
    ['2c806179-5122-4c77-9f50-4da13e9cbf23', 'Todo', 'In Progress', 'backlog', 'active'],
  ]);

  // Again, with a rate limit on the first request this time (Linear's own RATELIMITED answer and reset header).
  linear.seen.length = 0;
  linear.limits.push({ cursor: null, answer: 'RATELIMITED' });
  const second = await importer('linear', '--app', appId, '--key-file', keyFile, '--base-url', baseUrl, '--json');
  expect(second).toMatchObject({ code: 0 });
  expect(second.stderr).toMatch(/Linear asks to wait [12] s \(rate limit\); waiting/);
  expect(JSON.parse(second.stdout)).toMatchObject({ issues: 3, created: 0, updated: 0, unchanged: 3, pages: 2 });
  expect(linear.seen.map((s) => s.operation)).toEqual(['Issues', 'Issues', 'IssueHistory', 'Issues']);
  expect(await Task.count({ where: { app_id: appId } })).toBe(3);
  expect(await TaskStatusChange.count({ where: { task_id: [parent.id, sub.id, canceled.id] } })).toBe(5);
});

test('--since asks Linear only for the issues updated since then', async () => {
  const appId = await linearApp();
  linear.seen.length = 0;
  const run = await importer('linear', '--app', appId, '--key-file', keyFile, '--base-url', baseUrl, '--since', '2024-05-18');
  expect(run).toMatchObject({ code: 0 });
  expect(run.stdout).toMatch(new RegExp(`Imported 3 Linear issues into app ${appId} in [0-9.]+ s: 3 created, 0 updated, 0 already up to date`));
  expect(linear.seen[0].variables).toEqual({ cursor: null, filter: { updatedAt: { gte: '2024-05-18T00:00:00.000Z' } } });
});

test('a key Linear refuses, an unknown app or another provider\'s app: exit 1 saying what to fix, nothing stored', async () => {
  const appId = await linearApp();
  const wrongKey = path.join(path.dirname(keyFile), 'wrong');
  fs.writeFileSync(wrongKey, 'lin_api_wrong\n');
  const refused = await importer('linear', '--app', appId, '--key-file', wrongKey, '--base-url', baseUrl);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('import: Linear refused the API key (Authentication required, not authenticated); check --key-file');
  expect(refused.stderr).not.toContain('lin_api_wrong');
  expect(await Task.count({ where: { app_id: appId } })).toBe(0);

  const unknown = await importer('linear', '--app', 'app_nobody', '--key-file', keyFile, '--base-url', baseUrl);
  expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('No app app_nobody') });
  const jira = (await apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${randomUUID().slice(0, 8)}` })).app.id;
  const other = await importer('linear', '--app', jira, '--key-file', keyFile, '--base-url', baseUrl);
  expect(other).toMatchObject({ code: 1, stderr: expect.stringContaining(`App ${jira} is a jira app; this import reads Linear`) });
});

test('usage errors name what is missing', () => {
  expect(parseCommand(['linear', '--app', 'app_1', '--key-file', 'k', '--since', '2024-05-18T12:00:00Z'])).toEqual({
    kind: 'linear',
    app: 'app_1',
    keyFile: 'k',
    since: new Date('2024-05-18T12:00:00Z'),
    baseUrl: 'https://api.linear.app',
    json: false,
  });
  expect(() => parseCommand(['linear', '--key-file', 'k'])).toThrow(new UsageError('linear needs --app <id> (see npm run apps -- list)'));
  expect(() => parseCommand(['linear', '--app', 'app_1'])).toThrow(new UsageError('linear needs --key-file <file>: a file holding a Linear API key'));
  expect(() => parseCommand(['linear', '--app', 'app_1', '--key-file', 'k', '--since', 'yesterday'])).toThrow(UsageError);
  expect(() => parseCommand(['linear', '--app', 'app_1', '--key-file', 'k', '--base-url', 'ftp://x'])).toThrow(UsageError);
  expect(() => parseCommand(['linear', '--app', 'app_1', '--key-file', 'k', '--api-key', 'x'])).toThrow(UsageError);
});
