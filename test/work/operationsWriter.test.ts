import { Deployment, Incident, OutboxEvent } from '../../db/models';
import { createSequelize } from '../../db/connection';
import { ChangeRunner } from '../../src/persistence/changes/change';
import type { OperationEvent } from '../../src/services/operations/operationInput';
import { OperationsWriter } from '../../src/services/operations/operationsWriter';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The writer of incidents and deployments from apps (docs/incidents.md#what-is-stored) under what several instances of
 * the service meet: the deliveries of one incident at once, each several times, on two connection pools.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const at = (hours: number) => new Date(Date.parse('2026-06-01T08:00:00Z') + hours * 3_600_000);
const incident = (resolvedAt: Date | null, updatedAt: Date): OperationEvent => ({
  kind: 'incident',
  board: { candidates: ['PSERVICE'], namesRepository: false },
  incident: { externalId: 'Q1', title: 'Checkout down', causeSha: null, fixSha: null, createdAt: at(0), resolvedAt, updatedAt },
});

test('two instances storing the triggered, resolved and reopened deliveries of one incident at once, each three times: one incident, newest state', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'pagerduty', { name: `PagerDuty ${unique()}` });
  const source = { appId: app.id, organizationId: app.organization_id };
  // A second instance: its own connection pool, change runner and writer, as another process of the service would have.
  const other = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  try {
    const writers = [t.runtime.writers.operations, new OperationsWriter(ChangeRunner.for(other))];
    const deliveries = [
      { id: 'triggered', event: incident(null, at(0)) },
      { id: 'resolved', event: incident(at(2), at(2)) },
      { id: 'reopened', event: incident(null, at(3)) },
    ];
    const sends = deliveries.flatMap((d, i) => [0, 1, 2].map((copy) => ({ ...d, writer: writers[(i + copy) % 2] })));
    const answers = await Promise.all(sends.map(({ id, event, writer }) => writer.receive({ source, id, event: 'incident' }, [event])));
    // Each delivery applied once, by whichever instance came first; the copies are duplicates.
    expect(answers.filter((a) => a.result === 'applied')).toHaveLength(3);
    const stored = await Incident.findAll({ where: { app_id: app.id } });
    expect(stored.map((i) => [i.external_id, i.created_at.toISOString(), i.resolved_at, i.provider_updated_at?.toISOString()])).toEqual([['Q1', at(0).toISOString(), null, at(3).toISOString()]]);
  } finally {
    await other.close();
  }
});

test('deployments API calls of one id at once on two instances, the later finish winning', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'deployments', { name: `CI ${unique()}` });
  const source = { appId: app.id, organizationId: app.organization_id };
  const other = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  try {
    const writers = [t.runtime.writers.operations, new OperationsWriter(ChangeRunner.for(other))];
    const call = (status: 'success' | 'failure', finished: number): OperationEvent => ({
      kind: 'deployment',
      board: { candidates: ['acme/api'], namesRepository: true },
      deployment: { externalId: 'run-7', environment: 'production', status, sha: 'b'.repeat(40), createdAt: at(0), finishedAt: at(finished) },
    });
    const calls = [call('failure', 1), call('success', 2), call('failure', 1), call('success', 2)];
    await Promise.all(calls.map((event, i) => writers[i % 2].receive({ source, id: null, event: 'deployment' }, [event])));
    const stored = await Deployment.findAll({ where: { app_id: app.id } });
    expect(stored.map((d) => [d.repository_id, d.status, d.finished_at.toISOString()])).toEqual([[DEMO.repos.acmeApi, 'success', at(2).toISOString()]]);
  } finally {
    await other.close();
    await Deployment.destroy({ where: { app_id: app.id } });
  }
});

test('one group holding an incident’s trigger, its fix note and its resolution, and the deployment of that fix: stored once, announced in order, the deployment rework', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'deployments', { name: `CI ${unique()}` });
  const source = { appId: app.id, organizationId: app.organization_id };
  const fix = 'f'.repeat(40);
  const onApi = { candidates: ['acme/api'], namesRepository: true };
  const event = (id: string, resolvedAt: Date | null, updatedAt: Date): OperationEvent => ({
    kind: 'incident',
    board: onApi,
    incident: { externalId: id, title: `Incident ${id}`, causeSha: null, fixSha: null, createdAt: at(10), resolvedAt, updatedAt },
  });
  const seq = Number((await OutboxEvent.max('seq')) ?? 0);
  try {
    // The first delivery starts a change at once; the others arrive while it commits and are stored together in the next.
    const first = t.runtime.writers.operations.receive({ source, id: 'first', event: 'incident' }, [event('R1', null, at(10))]);
    const group = [
      { id: 'triggered', events: [event('R2', null, at(10))] },
      { id: 'noted', events: [{ kind: 'incident_note', externalId: 'R2', note: { causeSha: null, fixSha: fix } } as const] },
      { id: 'resolved', events: [event('R2', at(12), at(12))] },
      {
        id: 'deployed',
        events: [{ kind: 'deployment', board: onApi, deployment: { externalId: 'run-9', environment: 'production', status: 'success', sha: fix, createdAt: at(13), finishedAt: at(14) } } as const],
      },
    ].map((d) => t.runtime.writers.operations.receive({ source, id: d.id, event: 'incident' }, d.events));
    const answers = await Promise.all([first, ...group]);
    expect(answers.map((a) => a.items.map((i) => i.result))).toEqual([['created'], ['created'], ['updated'], ['updated'], ['created']]);
    const stored = await Incident.findAll({ where: { app_id: app.id }, order: [['external_id', 'ASC']] });
    expect(stored.map((i) => [i.external_id, i.repository_id, i.fix_sha, i.resolved_at?.toISOString() ?? null])).toEqual([
      ['R1', DEMO.repos.acmeApi, null, null],
      ['R2', DEMO.repos.acmeApi, fix, at(12).toISOString()],
    ]);
    const events = (await OutboxEvent.findAll({ order: [['seq', 'ASC']] })).filter((e) => Number(e.seq) > seq && e.type.startsWith('incident.') && e.data.includes(app.id));
    expect(events.map((e) => [e.type, (JSON.parse(e.data) as { title: string }).title])).toEqual([
      ['incident.opened', 'Incident R1'],
      ['incident.opened', 'Incident R2'],
      ['incident.resolved', 'Incident R2'],
    ]);
    // The fix's deployment is rework, though the incident was written after it in the same change.
    expect((await Deployment.findOne({ where: { app_id: app.id } }))?.rework).toBe(true);
  } finally {
    await Deployment.destroy({ where: { app_id: app.id } });
    await Incident.destroy({ where: { app_id: app.id } });
  }
});
