import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Sequelize } from 'sequelize';
import { sign } from '@octokit/webhooks-methods';
import { SERVICES } from '../support/harness';
import { runScript } from '../support/cli';
import { browserFor, sessionCookieOf } from '../support/peers/settingsBrowser';
import { githubExamples } from '../support/peers/ingest';
import { issueCreated, jiraSignature } from '../support/peers/jira/deliveries';
import type { DatabaseOptions } from '../../db/connection';
import { loadConfig } from '../../src/config';

jest.setTimeout(300_000);

/**
 * A company's first day (docs/getting-started.md), as a newcomer lives it against `npm start`'s own process: the
 * service starts empty and says the one command to run; `orgs create` makes the organization and its admin, whose
 * link signs in; the admin connects GitHub and Jira from the settings; real deliveries land under the new
 * organization, and the demo's organizations do not exist. On the embedded default with `--no-demo-data` (DEMO_DATA=false), and on a
 * fresh MariaDB database (which is never seeded) when the run has one.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

interface Started {
  child: ChildProcess;
  base: string;
  stdout: () => string;
}

/** The service as `npm run dev` runs it (tsx, from the sources: the other tests run the build), on a port of its own. */
async function start(env: NodeJS.ProcessEnv, args: string[]): Promise<Started> {
  const child = spawn(TSX, [path.join(ROOT, 'src', 'main.ts'), ...args], { cwd: ROOT, env });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not listen within 120 s: ${output}`)), 120_000);
    child.stdout!.on('data', () => {
      const match = /"port":(\d+)/.exec(output);
      if (match && output.includes('No organization yet')) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before listening: ${output}`)));
  });
  return { child, base: `http://127.0.0.1:${port}`, stdout: () => output };
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  started.child.kill('SIGINT');
  await new Promise((resolve) => started.child.once('exit', resolve));
}

async function firstDay(database: DatabaseOptions, extraEnv: NodeJS.ProcessEnv, args: string[] = []): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WEB_CONCURRENCY: '1', ...extraEnv };
  delete env.DATABASE_URL;
  delete env.SQLITE_PATH;
  delete env.REDIS_URL;
  delete env.METRICS_PORT;
  if (database.url) env.DATABASE_URL = database.url;
  else env.SQLITE_PATH = database.sqlitePath;
  let service: Started | undefined;
  try {
    service = await start(env, args);
    expect(service.stdout()).toContain('npm run orgs -- create --name "Your company" --admin you@company.com');
    expect(service.stdout()).not.toContain('Demo token');

    const made = await runScript('orgs', database, ['create', '--name', 'Initrode', '--admin', 'peter@initrode.test', '--json'], env);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const created = JSON.parse(made.stdout) as { id: string; admin: { id: string }; sign_in_link: string };
    const listed = await runScript('orgs', database, ['list', '--json'], env);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((o) => o.name)).toEqual(['Initrode']);

    // The admin opens the link: the page posts its fragment's token.
    const token = created.sign_in_link.split('#')[1];
    const signIn = await request(service.base).post('/auth/link').set('Origin', service.base).type('form').send({ token });
    expect(signIn.status).toBe(303);
    const cookie = sessionCookieOf(signIn)!;
    const session = await request(service.base).get('/trpc/settings.session').set('Cookie', cookie);
    const browser = browserFor(service.base, cookie, session.body.result.data.csrf_token, service.base);
    const org = { organization_id: created.id };

    // GitHub and Jira, connected from the page.
    const github = await browser.mutate('settings.gitApps.create', { ...org, provider: 'github', name: 'GitHub initrode' });
    expect(github.status).toBe(200);
    const gitApp = github.body.result.data as { git_app: { id: string; webhook_url: string }; secret: string };
    const jira = await browser.mutate('settings.apps.create', { ...org, provider: 'jira', name: 'Jira' });
    expect(jira.status).toBe(200);
    const app = jira.body.result.data as { app: { id: string; webhook_url: string }; secret: string };
    expect(gitApp.git_app.webhook_url.endsWith(`/ingest/github/${gitApp.git_app.id}`)).toBe(true);

    // Their real deliveries, signed as GitHub and Jira sign them.
    const push = JSON.stringify(githubExamples('push').find((p) => p.commits.length > 0));
    const pushed = await request(service.base)
      .post(`/ingest/github/${gitApp.git_app.id}`)
      .set({ 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': await sign(gitApp.secret, push) })
      .send(push);
    expect(pushed.status).toBe(200);
    const issue = JSON.stringify(issueCreated);
    const delivered = await request(service.base)
      .post(`/ingest/jira/${app.app.id}`)
      .set({ 'Content-Type': 'application/json; charset=UTF-8', 'X-Atlassian-Webhook-Identifier': randomUUID(), 'X-Hub-Signature': jiraSignature(app.secret, issue) })
      .send(issue);
    expect(delivered.status).toBe(200);

    // What landed is the new organization's, read through /v1 with a token the admin made on the page.
    const made2 = await browser.mutate('settings.apiTokens.create', { name: 'first day', organization_ids: [created.id] });
    const bearer = `Bearer ${made2.body.result.data.token}`;
    const v1 = (p: string) => request(service!.base).get(p).set('Authorization', bearer);
    const organizations = await v1('/v1/organizations');
    expect(organizations.body.data.map((o: { name: string }) => o.name)).toEqual(['Initrode']);
    const repositories = await v1(`/v1/git/apps/${gitApp.git_app.id}/repositories`);
    expect(repositories.body.data).toEqual([expect.objectContaining({ full_name: expect.any(String) })]);
    const commits = await v1(`/v1/git/apps/${gitApp.git_app.id}/repositories/all/commits?per_page=100`);
    expect(commits.status).toBe(200);
    expect(commits.body.meta.total).toBeGreaterThan(0);
    // The setup view says both receive: the admin's one look at what is connected.
    const setup = await browser.query('settings.setup', org);
    const sources = setup.body.result.data.sources as { id: string; state: string; last_delivery: { event: string } | null }[];
    expect(sources.find((s) => s.id === gitApp.git_app.id)).toMatchObject({ state: 'receiving', last_delivery: { event: 'push' } });
    expect(sources.find((s) => s.id === app.app.id)).toMatchObject({ state: 'receiving' });
    expect((await v1('/v1/organizations/org_acme')).status).toBe(404);
  } finally {
    await stop(service);
  }
}

test('on the embedded default with --no-demo-data (DEMO_DATA=false): empty, then a company of its own with its deliveries', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-first-day-'));
  try {
    await firstDay({ sqlitePath: path.join(dir, 'platform.sqlite') }, {}, ['--no-demo-data']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const onMariadb = SERVICES.databaseUrl ? test : test.skip;
onMariadb('on a fresh MariaDB database (never seeded, DEMO_DATA or not): the same day', async () => {
  const server = new URL(SERVICES.databaseUrl!);
  const name = `platform_first_day_${process.env.JEST_WORKER_ID ?? '0'}_${randomUUID().slice(0, 8)}`;
  server.pathname = '/';
  const admin = new Sequelize(server.toString(), { dialect: 'mysql', logging: false });
  await admin.query(`CREATE DATABASE \`${name}\``);
  try {
    const url = new URL(SERVICES.databaseUrl!);
    url.pathname = `/${name}`;
    await firstDay({ url: url.toString(), sqlitePath: '' }, { SECRETS_KEY: randomUUID().replace(/-/g, '').repeat(2), DEMO_DATA: 'true' });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.close();
  }
});

test('DEMO_DATA is true by default, false when set so, and anything else stops the start saying what to set', () => {
  expect(loadConfig({}).DEMO_DATA).toBe(true);
  expect(loadConfig({ DEMO_DATA: 'false' }).DEMO_DATA).toBe(false);
  expect(loadConfig({ DEMO_DATA: '0' }).DEMO_DATA).toBe(false);
  expect(() => loadConfig({ DEMO_DATA: 'no' })).toThrow(/DEMO_DATA must be true or false/);
});
