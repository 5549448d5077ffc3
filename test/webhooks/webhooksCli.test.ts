import path from 'node:path';
import { spawn } from 'node:child_process';
import { WebhookDelivery } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { eventually, Receiver, verify } from '../support/peers/receiver';
import { builtFile } from '../support/cli';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine,
// so a test of ten commands needs more than jest's default here. The limit is for a command that hangs.
jest.setTimeout(180_000);

/**
 * `npm run webhooks -- …` (docs/architecture.md#writers, docs/webhooks.md) as an operator runs it, in a child process on the test app's database,
 * and `npm run worker`, the delivery worker on its own.
 */

let t: TestApp;
let receiver: Receiver;
/** The CLI with private addresses allowed, for the receiver on 127.0.0.1. */
let webhooks: (...args: string[]) => Promise<CliRun>;
/** The CLI as an operator runs it in production: private addresses refused. */
let strictWebhooks: (...args: string[]) => Promise<CliRun>;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
  receiver = await Receiver.start();
  webhooks = appCli(t, 'webhooks', { WEBHOOK_ALLOW_PRIVATE: '1' });
  strictWebhooks = appCli(t, 'webhooks', { WEBHOOK_ALLOW_PRIVATE: '0' });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function created(path: string, ...extra: string[]): Promise<{ id: string; secret: string }> {
  const run = await webhooks('create', '--org', DEMO.orgs.acme, '--url', receiver.url(path), '--json', ...extra);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

test('create --json prints the id and the whsec_ secret once; list shows the endpoint, never the secret', async () => {
  const { id, secret } = await created('/cli', '--events', 'team.created,team.deleted');
  expect(id).toMatch(/^whep_/);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const list = await webhooks('list', '--org', DEMO.orgs.acme, '--json');
  expect(list.code).toBe(0);
  expect(list.stdout).not.toContain(secret.slice(6));
  expect(JSON.parse(list.stdout)).toContainEqual(
    expect.objectContaining({ id, organization_id: DEMO.orgs.acme, url: receiver.url('/cli'), events: ['team.created', 'team.deleted'], is_active: true, disabled_reason: null }),
  );
  const table = await webhooks('list');
  expect(table.stdout).toMatch(new RegExp(`${id} +${DEMO.orgs.acme} +${receiver.url('/cli').replace(/[.]/g, '\\.')} +team\\.created,team\\.deleted +yes`));
});

test('refusals: unknown events, forbidden URLs and unknown ids exit 1 saying what to fix; usage errors exit 2', async () => {
  const unknownEvent = await webhooks('create', '--org', DEMO.orgs.acme, '--url', 'https://example.com/hook', '--events', 'team.created,deploy.done');
  expect(unknownEvent.code).toBe(1);
  expect(unknownEvent.stderr).toMatch(/^webhooks: Unknown event type deploy\.done; the events are user\.created, user\.updated, /);

  const metadata = await strictWebhooks('create', '--org', DEMO.orgs.acme, '--url', 'http://169.254.169.254/latest/meta-data/');
  expect(metadata.code).toBe(1);
  expect(metadata.stderr).toBe(
    'webhooks: Cannot send webhooks to http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a linkLocal address; outgoing calls go only to public addresses\n',
  );
  const loopback = await strictWebhooks('create', '--org', DEMO.orgs.acme, '--url', receiver.url('/cli'));
  expect(loopback.stderr).toContain('127.0.0.1 is a loopback address');

  expect((await webhooks('disable', 'whep_nope')).stderr).toBe('webhooks: No webhook endpoint whep_nope (see "webhooks list")\n');
  expect((await webhooks('replay', 'dlv_nope')).code).toBe(1);
  const usage = await webhooks('create', '--url', 'https://example.com/hook');
  expect(usage.code).toBe(2);
  expect(usage.stderr).toMatch(/^webhooks: create needs --org <organization id>\n\nUsage:/);
  expect((await webhooks('frobnicate')).code).toBe(2);
  expect((await webhooks('deliveries', 'whep_x', '--limit', '0')).stderr).toContain('--limit must be a whole number from 1 to 1000');
});

test('disable, enable, rotate-secret, deliveries and replay', async () => {
  const { id, secret } = await created('/cli-lifecycle', '--events', 'team.created');
  t.runtime.webhooks.start();
  try {
    await t.runtime.writers.teams.create(DEMO.orgs.acme, { name: 'CLI team', externalId: null });
    await eventually('delivered', async () => (await WebhookDelivery.findOne({ where: { endpoint_id: id } }))?.status === 'succeeded');
  } finally {
    await t.runtime.webhooks.stop();
  }
  const attempts = JSON.parse((await webhooks('deliveries', id, '--json')).stdout);
  expect(attempts).toEqual([
    expect.objectContaining({ delivery_id: expect.stringMatching(/^dlv_/), event_type: 'team.created', status_code: 200, error: null, delivery_status: 'succeeded' }),
  ]);
  expect((await webhooks('deliveries', id)).stdout).toMatch(/team\.created +200 +\d+ +succeeded/);

  const replay = await webhooks('replay', attempts[0].delivery_id, '--json');
  expect(JSON.parse(replay.stdout)).toEqual({ id: expect.stringMatching(/^dlv_/), replay_of: attempts[0].delivery_id, event_id: attempts[0].event_id });

  const disabled = await webhooks('disable', id, '--json');
  expect(JSON.parse(disabled.stdout)).toMatchObject({ id, is_active: false, disabled_reason: expect.stringMatching(/^disabled by an operator/) });
  expect((await webhooks('replay', attempts[0].delivery_id)).stderr).toMatch(/is disabled .*; enable it first/);
  const enabled = await webhooks('enable', id, '--json');
  expect(JSON.parse(enabled.stdout)).toMatchObject({ id, is_active: true, resumed: 1 });

  const rotated = await webhooks('rotate-secret', id, '--json');
  const { secret: next } = JSON.parse(rotated.stdout);
  expect(next).toMatch(/^whsec_/);
  expect(next).not.toBe(secret);
  expect((await webhooks('rotate-secret', id)).stdout).toContain('For 24 hours deliveries carry a signature by the previous secret too.');
});

test('npm run worker sends on its own, and stops cleanly on SIGTERM', async () => {
  const { id, secret } = await created('/cli-worker', '--events', 'team.deleted');
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '1' };
  delete env.DATABASE_URL;
  delete env.SQLITE_PATH;
  if (t.config.DATABASE_URL) env.DATABASE_URL = t.config.DATABASE_URL;
  else env.SQLITE_PATH = t.config.SQLITE_PATH;
  if (t.config.SECRETS_KEY) env.SECRETS_KEY = t.config.SECRETS_KEY.toString('hex');
  const root = path.resolve(__dirname, '..', '..');
  const worker = spawn(process.execPath, [builtFile('scripts/worker.ts')], { cwd: root, env, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  try {
    const team = await t.runtime.writers.teams.create(DEMO.orgs.acme, { name: 'Worker team', externalId: null });
    await t.runtime.writers.teams.delete(DEMO.orgs.acme, team.id);
    await eventually('delivered by the worker process', () => receiver.at('/cli-worker').some((r) => (verify(secret, r) as { type: string }).type === 'team.deleted'), 30_000);
    await eventually('recorded', async () => (await WebhookDelivery.findOne({ where: { endpoint_id: id } }))?.status === 'succeeded');
  } finally {
    worker.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});
