import { createPool } from 'mysql2/promise';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { jiraDeliveries, jiraSignature } from '../../scripts/bench/jira/bodies';
import { jiraRowSet, KnownTasks } from '../../scripts/bench/jira/rows';
import { storeInOneTransaction } from '../../scripts/bench/floor/store';
import { jiraWebhook } from '../../src/integrations/jira/webhook';
import { bodyAuthentication, withSecret } from '../support/webhooks';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The tracker-ingest row of `npm run bench`: its Jira deliveries are new every time and signed as Jira signs them,
 * and the ingest floor writes for a delivery the rows the service writes for it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const START = Date.parse('2026-10-01T00:00:00Z');

test('deliveries: half create an issue, half move one created at least the lag before; every id new; each signed with the secret', () => {
  const secret = unique();
  const deliveries = jiraDeliveries(200, secret, { lag: 16, startMs: START });
  const payloads = deliveries.map((d) => JSON.parse(d.body.toString('utf8')));
  expect(new Set(deliveries.map((d) => d.id)).size).toBe(200);
  expect(new Set(deliveries.map((d) => d.headers['x-atlassian-webhook-identifier'])).size).toBe(200);
  expect(new Set(payloads.map((p) => p.changelog.id)).size).toBe(200);
  const created = deliveries.filter((d) => d.kind === 'created');
  expect(created.length / deliveries.length).toBeGreaterThanOrEqual(0.5);
  expect(created.length / deliveries.length).toBeLessThan(0.6);
  expect(new Set(created.map((d) => d.issueId)).size).toBe(created.length);
  deliveries.forEach((d, i) => {
    expect(payloads[i].webhookEvent).toBe(d.kind === 'created' ? 'jira:issue_created' : 'jira:issue_updated');
    expect(payloads[i].issue.id).toBe(d.issueId);
    expect(payloads[i].timestamp).toBe(START + i * 1000);
    if (d.kind === 'updated') {
      const creation = created.findIndex((c) => c.issueId === d.issueId);
      expect(deliveries.indexOf(created[creation])).toBeLessThanOrEqual(i - 16);
      expect(payloads[i].changelog.items).toEqual([expect.objectContaining({ field: 'status', fromString: 'To Do', toString: 'In Progress' })]);
    }
    // The service's own check of Jira's signature accepts it; another secret's does not.
    expect(d.headers['x-hub-signature']).toBe(jiraSignature(secret, d.body));
    expect(() => bodyAuthentication(jiraWebhook)(d.headers, d.body, [secret], new Date())).not.toThrow();
    expect(() => bodyAuthentication(jiraWebhook)(d.headers, d.body, ['another secret'], new Date())).toThrow(/does not match/);
  });
});

const onMysql = process.env.DATABASE_URL ? test : test.skip;

onMysql('the ingest floor writes for each delivery the rows the service writes: the delivery, the task, its status changes (MariaDB)', async () => {
  const apps = t.runtime.writers.apps;
  const service = withSecret(await apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
  const floor = withSecret(await apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
  // Two creations, each followed by its status change.
  const deliveries = jiraDeliveries(4, service.secret, { lag: 0, startMs: START });
  expect(deliveries.map((d) => d.kind)).toEqual(['created', 'updated', 'created', 'updated']);

  for (const d of deliveries) {
    const res = await request(t.runtime.app).post(`/ingest/jira/${service.app.id}`).set(d.headers).send(d.body.toString('utf8'));
    expect(res.status).toBe(200);
    expect(res.body.data.result).toBe('applied');
  }
  const pool = createPool({ uri: t.config.DATABASE_URL, connectionLimit: 1 });
  try {
    const known: KnownTasks = new Map();
    for (const d of deliveries) {
      const rows = jiraRowSet({ id: floor.app.id, organization_id: floor.app.organization_id, points_field: floor.app.points_field }, d.id, d.body, new Date(), known);
      await storeInOneTransaction(pool, rows.statements);
    }
  } finally {
    await pool.end();
  }

  const select = (sql: string, appId: string) => t.runtime.sequelize.query<Record<string, unknown>>(sql, { type: QueryTypes.SELECT, replacements: [appId] });
  const written = async (appId: string) => ({
    tasks: await select('SELECT * FROM tasks WHERE app_id = ? ORDER BY external_id', appId),
    changes: await select('SELECT c.*, t.external_id AS issue FROM task_status_changes c JOIN tasks t ON t.id = c.task_id WHERE t.app_id = ? ORDER BY c.external_id', appId),
    deliveries: await select('SELECT * FROM ingest_deliveries WHERE app_id = ? ORDER BY delivery_id', appId),
  });
  // Ids are each writer's own; the delivery's receipt is stamped when each wrote it.
  const comparable = (w: Awaited<ReturnType<typeof written>>) => ({
    tasks: w.tasks.map(({ id, app_id, ...rest }) => rest),
    changes: w.changes.map(({ task_id, ...rest }) => rest),
    deliveries: w.deliveries.map(({ app_id, received_at, ...rest }) => rest),
  });
  const byService = await written(service.app.id);
  const byFloor = await written(floor.app.id);
  expect(byService.tasks).toHaveLength(2);
  expect(byService.changes).toHaveLength(2);
  expect(byService.deliveries).toHaveLength(4);
  expect(byService.tasks[0]).toMatchObject({ status: 'active', status_name: 'In Progress', status_changes: 1 });
  expect(comparable(byFloor)).toEqual(comparable(byService));
});
