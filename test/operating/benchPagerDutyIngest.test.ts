import { createPool } from 'mysql2/promise';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { storeInOneTransaction } from '../../scripts/bench/floor/store';
import { pagerdutyIngest } from '../../scripts/bench/pagerduty/source';
import { pagerdutyWebhook } from '../../src/integrations/pagerduty/webhook';
import { bodyAuthentication, withSecret } from '../support/webhooks';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The incident-ingest row of `npm run bench`: its PagerDuty deliveries are new every time and signed as PagerDuty
 * signs them, and the ingest floor writes for a delivery the rows the service writes for it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** A time in the past, so the deliveries' times are the same for the service's and the floor's. */
const START = Date.now() - 3_600_000;

const benchApp = (app: { id: string; organization_id: string; points_field: string | null }) => ({ id: app.id, organization_id: app.organization_id, points_field: app.points_field });

test('deliveries: half trigger an incident, half resolve one triggered at least the lag before; every event new; each signed with the secret', () => {
  const secret = unique();
  const app = { id: 'app_bench', organization_id: DEMO.orgs.acme, points_field: null };
  const { deliveries } = pagerdutyIngest.deliveries(app, secret, 200, 16, START);
  const events = deliveries.map((d) => JSON.parse(d.body.toString('utf8')).event);
  expect(new Set(events.map((e) => e.id)).size).toBe(200);
  const triggered = events.filter((e) => e.event_type === 'incident.triggered');
  expect(triggered.length / events.length).toBeGreaterThanOrEqual(0.5);
  expect(triggered.length / events.length).toBeLessThan(0.6);
  events.forEach((e, i) => {
    if (e.event_type === 'incident.resolved') {
      const trigger = events.findIndex((o) => o.event_type === 'incident.triggered' && o.data.id === e.data.id);
      expect([trigger >= 0, trigger <= i - 16]).toEqual([true, true]);
    }
    // The service's own check of PagerDuty's signature accepts it; another secret's does not.
    expect(() => bodyAuthentication(pagerdutyWebhook)(deliveries[i].headers, deliveries[i].body, [secret], new Date())).not.toThrow();
    expect(() => bodyAuthentication(pagerdutyWebhook)(deliveries[i].headers, deliveries[i].body, ['another secret'], new Date())).toThrow(/does not match/);
  });
});

const onMysql = process.env.DATABASE_URL ? test : test.skip;

onMysql('the ingest floor writes for each delivery the rows the service writes: the delivery, the incident, its event (MariaDB)', async () => {
  const apps = t.runtime.writers.apps;
  const service = withSecret(await apps.create(DEMO.orgs.acme, 'pagerduty', { name: `PagerDuty ${unique()}` }));
  const floor = withSecret(await apps.create(DEMO.orgs.acme, 'pagerduty', { name: `PagerDuty ${unique()}` }));
  // Two triggered, then the first resolved.
  const sent = pagerdutyIngest.deliveries(benchApp(service.app), service.secret, 3, 0, START).deliveries;
  const written = pagerdutyIngest.deliveries(benchApp(floor.app), service.secret, 3, 0, START).deliveries;
  expect(sent.map((d) => JSON.parse(d.body.toString('utf8')).event.event_type)).toEqual(['incident.triggered', 'incident.resolved', 'incident.triggered']);

  for (const d of sent) {
    const res = await request(t.runtime.app).post(`/ingest/pagerduty/${service.app.id}`).set(d.headers).send(d.body.toString('utf8'));
    expect([res.status, res.body.data.result]).toEqual([200, 'applied']);
  }
  const pool = createPool({ uri: t.config.DATABASE_URL, connectionLimit: 1 });
  try {
    for (const d of written) await storeInOneTransaction(pool, d.statements);
  } finally {
    await pool.end();
  }

  const select = (sql: string, replacements: unknown[]) => t.runtime.sequelize.query<Record<string, any>>(sql, { type: QueryTypes.SELECT, replacements });
  const rows = async (appId: string) => ({
    incidents: await select('SELECT * FROM incidents WHERE app_id = ? ORDER BY external_id', [appId]),
    deliveries: await select('SELECT * FROM ingest_deliveries WHERE app_id = ? ORDER BY delivery_id', [appId]),
    events: await select('SELECT type, data FROM outbox_events WHERE data LIKE ? ORDER BY seq', [`%"app_id":"${appId}"%`]),
  });
  // Ids are each writer's own; a delivery's receipt is stamped when each wrote it.
  const comparable = (w: Awaited<ReturnType<typeof rows>>, appId: string) => ({
    incidents: w.incidents.map(({ id, app_id, ...rest }) => rest),
    deliveries: w.deliveries.map(({ app_id, received_at, ...rest }) => rest),
    events: w.events.map((e) => ({ type: e.type, data: { ...JSON.parse(e.data), id: undefined, app_id: JSON.parse(e.data).app_id === appId } })),
  });
  const byService = await rows(service.app.id);
  const byFloor = await rows(floor.app.id);
  expect(byService.incidents).toHaveLength(2);
  expect(byService.events.map((e) => e.type)).toEqual(['incident.opened', 'incident.resolved', 'incident.opened']);
  expect(comparable(byFloor, floor.app.id)).toEqual(comparable(byService, service.app.id));
});
