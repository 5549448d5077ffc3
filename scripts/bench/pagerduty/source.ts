/**
 * The incident-ingest row (scripts/bench/apps/ingest.ts): PagerDuty's Webhooks v3 deliveries, made from the deliveries
 * PagerDuty signed that the tests keep (test/support/peers/pagerduty/, see its README for where each came from):
 * `incident.triggered`, and `incident.resolved` of an incident triggered earlier, about half each, every one a new
 * event with its own id. Only ids and times change; each is signed as PagerDuty signs with the subscription's secret.
 *
 * The service is not mapped to a repository (a new app has no mappings), so the service writes what the floor
 * writes below and no rollups: the delivery, the incident (inserted when triggered, its resolution updated), and
 * its outbox event (`incident.opened` or `incident.resolved`), in the writers' order.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'mysql2';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { newId } from '../../../src/persistence/changes/ids';
import type { AppIngestSource, BenchApp, PreparedDelivery } from '../apps/ingest';

const FIXTURES = path.resolve(__dirname, '../../../test/support/peers/pagerduty');
const template = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, any>;

/** As PagerDuty signs a v3 webhook's body (developer.pagerduty.com/docs/verifying-webhook-signatures). */
const pagerdutySignature = (secret: string, body: Buffer) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** DATETIME(3) in UTC, as the API's Sequelize (timezone +00:00) writes it. */
const utc = (d: Date) => d.toISOString().slice(0, 23).replace('T', ' ');
const insert = (table: string, row: Record<string, unknown>) => format(`INSERT INTO ${table} SET ?`, [row]);

/** The incident item the service announces (src/resources/git.ts toIncident), as its outbox event's data. */
function incidentItem(id: string, app: BenchApp, serviceId: string, externalId: string, title: string, createdAt: Date, resolvedAt: Date | null) {
  return { id, repository_id: null, app_id: app.id, service: serviceId, title, cause_sha: null, fix_sha: null, created_at: createdAt.toISOString(), resolved_at: resolvedAt?.toISOString() ?? null };
}

function delivery(app: BenchApp, secret: string, payload: Record<string, any>, statements: string[]): PreparedDelivery {
  const body = Buffer.from(JSON.stringify(payload));
  return { body, headers: { 'content-type': 'application/json', 'user-agent': 'PagerDuty-Webhook/V3.0', 'x-pagerduty-signature': pagerdutySignature(secret, body) }, statements };
}

export const pagerdutyIngest: AppIngestSource = {
  provider: 'pagerduty',
  rowPath: '/ingest/pagerduty/{app_id}',
  itemName: 'delivery',

  deliveries(app, secret, count, lag, startMs) {
    const triggered = template('incidentTriggered.json');
    const resolved = template('incidentResolved.json');
    const serviceId = triggered.event.data.service.id as string;
    // What the service keeps of each incident's triage (docs/incidents.md#what-is-stored): the example's, every time.
    const triage = {
      urgency: (triggered.event.data.urgency as string | undefined) ?? null,
      priority: (triggered.event.data.priority?.summary as string | undefined) ?? null,
      service: (triggered.event.data.service.summary as string | undefined) ?? null,
    };
    const open: { id: string; externalId: string; title: string; createdAt: Date }[] = [];
    const out: PreparedDelivery[] = [];
    let opened = 0;
    for (let i = 0; i < count; i++) {
      const at = new Date(startMs + i * 1000);
      const eventId = `BENCH${String(i).padStart(10, '0')}`;
      const received = { app_id: app.id, delivery_id: eventId, received_at: utc(new Date()) };
      if (i % 2 === 1 && open.length > lag) {
        const incident = open.shift()!;
        const payload = structuredClone(resolved);
        Object.assign(payload.event, { id: eventId, occurred_at: at.toISOString() });
        Object.assign(payload.event.data, { id: incident.externalId, title: incident.title, created_at: incident.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z') });
        const item = incidentItem(incident.id, app, serviceId, incident.externalId, incident.title, incident.createdAt, at);
        out.push(
          delivery(app, secret, payload, [
            insert('ingest_deliveries', { ...received, event: 'incident.resolved' }),
            format('UPDATE incidents SET resolved_at = ?, provider_updated_at = ? WHERE app_id = ? AND external_id = ?', [utc(at), utc(at), app.id, incident.externalId]),
            insert('outbox_events', { id: newId('evt'), organization_id: app.organization_id, type: 'incident.resolved', data: JSON.stringify(item), created_at: utc(new Date()) }),
          ]),
        );
        continue;
      }
      // PagerDuty's creation times are whole seconds.
      const createdAt = new Date(Math.floor(at.getTime() / 1000) * 1000);
      const incident = { id: newId('inc'), externalId: `QBENCH${String(i).padStart(8, '0')}`, title: `${String(triggered.event.data.title)} ${i}`, createdAt };
      open.push(incident);
      opened++;
      const payload = structuredClone(triggered);
      Object.assign(payload.event, { id: eventId, occurred_at: at.toISOString() });
      Object.assign(payload.event.data, { id: incident.externalId, number: i + 1, title: incident.title, created_at: createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z') });
      const row = {
        id: incident.id, repository_id: null, git_app_id: null, organization_id: app.organization_id, app_id: app.id, board_key: serviceId, external_id: incident.externalId,
        title: incident.title, cause_sha: null, fix_sha: null, created_at: utc(createdAt), resolved_at: null, provider_updated_at: utc(at), ...triage,
      };
      out.push(
        delivery(app, secret, payload, [
          insert('ingest_deliveries', { ...received, event: 'incident.triggered' }),
          insert('incidents', row),
          insert('outbox_events', { id: newId('evt'), organization_id: app.organization_id, type: 'incident.opened', data: JSON.stringify(incidentItem(incident.id, app, serviceId, incident.externalId, incident.title, createdAt, null)), created_at: utc(new Date()) }),
        ]),
      );
    }
    return { deliveries: out, first: { deliveries: 1, incidents: 1, resolved: 0, events: 1 }, summary: `${opened} incidents triggered, ${count - opened} resolved` };
  },

  async stored(db, appId) {
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT (SELECT COUNT(*) FROM ingest_deliveries WHERE app_id = ?) AS deliveries, (SELECT COUNT(*) FROM incidents WHERE app_id = ?) AS incidents,
              (SELECT COUNT(*) FROM incidents WHERE app_id = ? AND resolved_at IS NOT NULL) AS resolved,
              (SELECT COUNT(*) FROM outbox_events WHERE type LIKE 'incident.%' AND data LIKE ?) AS events`,
      [appId, appId, appId, `%"app_id":"${appId}"%`],
    );
    return { deliveries: Number(rows[0].deliveries), incidents: Number(rows[0].incidents), resolved: Number(rows[0].resolved), events: Number(rows[0].events) };
  },

  async removeRows(db: Connection, appId: string) {
    for (const table of ['incidents', 'ingest_deliveries']) await db.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
    await db.query("DELETE FROM outbox_events WHERE type LIKE 'incident.%' AND data LIKE ?", [`%"app_id":"${appId}"%`]);
  },

  note:
    "PagerDuty's Webhooks v3 deliveries, half triggering an incident and half resolving one triggered earlier, on a service not mapped to a repository, each signed with the app's secret; " +
    'the ingest floor writes the delivery, the incident and its outbox event with mysql2; its stack floor writes the same behind express.raw, the HMAC check, JSON.parse and a zod check of the outline.',
};
