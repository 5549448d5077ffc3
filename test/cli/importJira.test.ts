import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Task, TaskStatusChange } from '../../db/models';
import { appCli } from '../support/cli';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { copy } from '../support/peers/ingest';
import { deliverToJira, issueAssigned, issueCreated, issueDone, issueStatusChanged } from '../support/peers/jira/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * `npm run import -- jira` (docs/trackers.md#backfilling-jira) as an operator runs it, against a fake Jira Cloud
 * answering `GET /rest/api/3/search/jql` as Atlassian documents it (test/support/peers/jira/README.md): two pages
 * by `nextPageToken`, the second refused once with 429 and `Retry-After: 1`.
 */
jest.setTimeout(180_000);

const EMAIL = 'ops@acme.example';
const TOKEN = 'ATATT3xFfGF0-not-a-real-token';

/** A delivery's issue as the search shows it with `expand=changelog`: its changelog as one history. */
function searched(delivery: Record<string, any>, historyId: string, at: string): Record<string, any> {
  const issue = copy(delivery.issue);
  const items = delivery.changelog?.items ?? [];
  issue.changelog = { startAt: 0, maxResults: 1, total: 1, histories: [{ id: historyId, author: delivery.user, created: at, items }] };
  return issue;
}

// The search's two pages: the site's story points field holds 3 on the assigned story.
const assigned = searched(issueAssigned, '76941', issueAssigned.issue.fields.updated);
assigned.fields.customfield_10016 = 3;
const PAGES: Record<string, unknown>[] = [
  {
    issues: [searched(issueCreated, '34001', issueCreated.issue.fields.created), searched(issueStatusChanged, '34911', issueStatusChanged.issue.fields.updated)],
    nextPageToken: 'CAEaAggD',
    isLast: false,
  },
  { issues: [assigned], isLast: true },
];

interface Seen {
  url: URL;
  authorization: string | undefined;
}

let t: TestApp;
let importer: ReturnType<typeof appCli>;
let server: http.Server;
let baseUrl: string;
let tokenFile: string;
const seen: Seen[] = [];
let throttleNext = true;

beforeAll(async () => {
  t = await startTestApp();
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  importer = appCli(t, 'import', { WEBHOOK_ALLOW_PRIVATE: '1' });
  tokenFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jira-token-')), 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`);
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    seen.push({ url, authorization: req.headers.authorization });
    if (req.headers.authorization !== `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ errorMessages: ['You are not authorized'] }));
      return;
    }
    if (url.pathname !== '/rest/api/3/search/jql') return void res.writeHead(404).end();
    const token = url.searchParams.get('nextPageToken');
    if (token && throttleNext) {
      throttleNext = false;
      res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end(JSON.stringify({ errorMessages: ['Rate limit exceeded.'] }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(token === 'CAEaAggD' ? PAGES[1] : PAGES[0]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const jira = (appId: string, ...more: string[]) =>
  importer('jira', '--app', appId, '--site', 'https://acme.atlassian.net', '--email', EMAIL, '--token-file', tokenFile, '--base-url', baseUrl, ...more);

test('two pages, a 429 honoured, every issue with its history; a second run adds nothing; a webhook after it updates the same task', async () => {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}`, pointsField: 'customfield_10016' }));
  seen.length = 0;
  throttleNext = true;
  const first = await jira(app.id, '--since', '2018-01-01', '--json');
  expect(first.stderr).toContain('wait 1 s');
  expect(first.stderr).toContain('page 2: 1 issues');
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ app_id: app.id, site: 'https://acme.atlassian.net', pages: 2, issues: 3, created: 3, updated: 0, unchanged: 0 });

  // The requests: the documented search, bounded, oldest update first, with the changelog and the points field.
  expect(seen.map((s) => s.url.searchParams.get('nextPageToken'))).toEqual([null, 'CAEaAggD', 'CAEaAggD']);
  const query = seen[0].url.searchParams;
  expect(query.get('jql')).toBe('updated >= "2017-12-31" ORDER BY updated ASC');
  expect(query.get('expand')).toBe('changelog');
  expect(query.get('fields')!.split(',')).toEqual(expect.arrayContaining(['summary', 'status', 'issuetype', 'assignee', 'parent', 'customfield_10016']));
  expect(query.get('fields')).not.toMatch(/description|comment/);

  const tasks = await Task.findAll({ where: { app_id: app.id }, order: [['external_id', 'ASC']] });
  expect(tasks.map((x) => [x.external_id, x.board_key, x.type, x.status, x.status_name, x.story_points, x.parent_external_id])).toEqual([
    ['11442', 'INDEV', 'task', 'active', 'In Progress', null, null],
    ['19435', 'INDEV', 'story', 'backlog', 'To Do', 3, '11389'],
    ['30369', 'BBCOM', 'task', 'backlog', 'Open', null, null],
  ]);
  const moved = tasks[0];
  const history = await TaskStatusChange.findAll({ where: { task_id: moved.id } });
  expect(history.map((h) => [h.external_id, h.from_name, h.to_name, h.to_category, h.at.toISOString()])).toEqual([['34911', 'To Do', 'In Progress', 'active', '2019-01-30T12:51:33.199Z']]);

  const changes = await TaskStatusChange.count({ where: { organization_id: DEMO.orgs.acme } });
  const again = await jira(app.id, '--since', '2018-01-01');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('Imported 3 issues of https://acme.atlassian.net into app');
  expect(again.stdout).toContain('0 created, 0 updated, 3 already up to date');
  expect(await Task.count({ where: { app_id: app.id } })).toBe(3);
  expect(await TaskStatusChange.count({ where: { organization_id: DEMO.orgs.acme } })).toBe(changes);

  // The issue moves on in Jira: its webhook meets the imported task (the same change, 34911, is not added twice).
  const delivered = await deliverToJira(t, app.id, secret, { payload: issueDone() });
  expect(delivered.body.data.tasks).toEqual([{ external_id: '11442', result: 'updated' }]);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(3);
  expect((await TaskStatusChange.findAll({ where: { task_id: moved.id } })).map((h) => h.external_id).sort()).toEqual(['34911', '34950']);
});

test('what Jira refuses, and what the command line lacks, is said plainly', async () => {
  const { app } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
  const wrongToken = path.join(path.dirname(tokenFile), 'wrong');
  fs.writeFileSync(wrongToken, 'not-it');
  const refused = await importer('jira', '--app', app.id, '--site', 'https://acme.atlassian.net', '--email', EMAIL, '--token-file', wrongToken, '--base-url', baseUrl);
  expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('refused the e-mail and API token (401)')]);

  const unknown = await jira('app_nobody');
  expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('No app app_nobody')]);
  const { app: linear } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${unique()}` }));
  const other = await jira(linear.id);
  expect([other.code, other.stderr]).toEqual([1, expect.stringContaining('is a linear app')]);

  const usage = await importer('jira', '--app', app.id, '--email', EMAIL, '--token-file', tokenFile);
  expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('jira needs --site')]);
  const badSince = await jira(app.id, '--since', 'last tuesday');
  expect([badSince.code, badSince.stderr]).toEqual([2, expect.stringContaining('--since must be a date')]);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(0);
});
