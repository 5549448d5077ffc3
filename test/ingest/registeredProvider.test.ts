import { createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import { publicBase } from '../../src/config';
import { INTEGRATIONS } from '../../src/integrations/registry';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { withSecret } from '../support/webhooks';
import { acmeTracker } from './acmeTracker';

/**
 * The registry drives every place a provider shows (docs/architecture.md#adding-a-provider): a provider that exists
 * only in this test's folder (./acmeTracker), registered beside the real ones, is routed to its URL, authenticated
 * with its own signature, stored by the task writer, made and listed by `apps`, offered by the settings page's
 * catalog, and pointed to by the other providers' URLs when a delivery carrying its header lands there.
 */

let t: TestApp;
let ada: SettingsBrowser;
beforeAll(async () => {
  t = await startTestApp({}, { integrations: [...INTEGRATIONS, acmeTracker] });
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, new URL(publicBase(t.config)).origin);
});
afterAll(async () => t?.close());

const issue = { key: 'ACME-1', project: 'CORE', title: 'Ship the importer', done: false, updated_at: '2026-11-20T10:00:00Z' };

function deliver(path: string, body: object, secret: string, headers: Record<string, string> = {}) {
  const raw = JSON.stringify(body);
  return request(t.runtime.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('X-Acme-Event', 'issue.updated')
    .set('X-Acme-Delivery', randomUUID())
    .set('X-Acme-Signature', `hmac-sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`)
    .set(headers)
    .send(raw);
}

test('made by the apps writer with a webhook secret, its deliveries routed, authenticated and stored as tasks', async () => {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'acme_tracker'));
  expect(app).toMatchObject({ provider: 'acme_tracker', category: 'issues', name: 'Acme Tracker' });

  const stored = await deliver(`/ingest/acme_tracker/${app.id}`, { issue }, secret);
  expect([stored.status, stored.body.data]).toEqual([200, expect.objectContaining({ event: 'issue.updated', result: 'applied' })]);
  const again = await deliver(`/ingest/acme_tracker/${app.id}`, { issue }, secret, { 'X-Acme-Delivery': stored.body.data.delivery_id });
  expect(again.body.data.result).toBe('duplicate');

  const forged = await deliver(`/ingest/acme_tracker/${app.id}`, { issue }, 'not the secret');
  expect([forged.status, forged.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  const ignored = await deliver(`/ingest/acme_tracker/${app.id}`, { issue }, secret, { 'X-Acme-Event': 'issue.viewed' });
  expect([ignored.status, ignored.body.data.result]).toEqual([202, 'ignored']);
  const tooLarge = await deliver(`/ingest/acme_tracker/${app.id}`, { issue, padding: 'x'.repeat(70 * 1024) }, secret);
  expect([tooLarge.status, tooLarge.body.error.message]).toEqual([413, expect.stringContaining('the limit of /ingest/acme_tracker deliveries')]);
});

test('the other providers point its deliveries to its URL, and it points theirs to theirs', async () => {
  const { app: jira } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira'));
  const atJira = await deliver(`/ingest/jira/${jira.id}`, { issue }, 'any');
  expect([atJira.status, atJira.body.error.message]).toEqual([400, expect.stringMatching(/^This is a acme_tracker delivery; send it to \/ingest\/acme_tracker\//)]);
  const { gitApp } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'GitHub for the registry test');
  const atGithub = await deliver(`/ingest/github/${gitApp.id}`, { issue }, 'any');
  expect([atGithub.status, atGithub.body.error.message]).toEqual([400, expect.stringContaining('/ingest/acme_tracker/{app_id}')]);

  const { app } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'acme_tracker'));
  const github = await request(t.runtime.app).post(`/ingest/acme_tracker/${app.id}`).set('X-GitHub-Event', 'push').send({});
  expect([github.status, github.body.error.message]).toEqual([400, expect.stringMatching(/^This is a github delivery; send it to \/ingest\/github\/\{git_app_id\}/)]);
});

test('listed by settings.apps and offered by the settings page’s catalog, with its setup help', async () => {
  const made = (await ada.mutate('settings.apps.create', { organization_id: DEMO.orgs.acme, provider: 'acme_tracker' })).body.result.data;
  expect(made.app).toMatchObject({ provider: 'acme_tracker', webhook_url: `${publicBase(t.config)}/ingest/acme_tracker/${made.app.id}` });
  const listed = (await ada.query('settings.apps.list', { organization_id: DEMO.orgs.acme })).body.result.data;
  expect(listed.map((a: { id: string }) => a.id)).toContain(made.app.id);
  const offered = (await ada.query('settings.providers', undefined)).body.result.data;
  expect(offered.find((p: { id: string }) => p.id === 'acme_tracker')).toEqual({
    id: 'acme_tracker',
    name: 'Acme Tracker',
    category: 'issues',
    connection: 'app',
    pushes: true,
    resources: [],
    setup: acmeTracker.setup,
    reads_github_account: false,
    names_points_field: false,
  });
});

test('the catalog is a signed-in person’s: an API token, no session or a foreign Origin on a change is refused', async () => {
  const token = await t.token();
  expect((await ada.query('settings.providers', undefined, { Authorization: `Bearer ${token}` })).status).toBe(401);
  expect((await request(t.runtime.app).get('/trpc/settings.providers')).status).toBe(401);
  const foreign = await ada.mutate('settings.apps.create', { organization_id: DEMO.orgs.acme, provider: 'acme_tracker' }, { Origin: 'https://evil.example' });
  expect(foreign.status).toBe(403);
  const linus = await signInWithLink(t.runtime.app, DEMO.users.linus, new URL(publicBase(t.config)).origin);
  expect((await linus.mutate('settings.apps.create', { organization_id: DEMO.orgs.acme, provider: 'acme_tracker' })).status).toBe(403);
});

test('without it registered, its URL is unknown and no app of it can be made', async () => {
  const plain = await startTestApp();
  try {
    const res = await request(plain.runtime.app).post('/ingest/acme_tracker/app_1').send({});
    expect([res.status, res.body.error.message]).toEqual([404, expect.stringContaining('webhooks go to POST /ingest/github/{git_app_id}')]);
    await expect(plain.runtime.writers.apps.create(DEMO.orgs.acme, 'acme_tracker')).rejects.toMatchObject({ kind: 'invalid', message: expect.stringMatching(/^provider must be one of jira, linear/) });
  } finally {
    await plain.close();
  }
});
