import request from 'supertest';
import { Deployment, Incident } from '../../db/models';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { unique } from '../support/common';

/**
 * The deployments API (docs/incidents.md#the-deployments-api): `POST /ingest/deployments/{app_id}/deployments` and
 * `…/incidents` with `Authorization: Bearer <secret>`, as the docs' curl line, GitHub Actions step and Argo CD hook
 * send them.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => t.close());

async function deploymentsApp() {
  const { app, secret } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'deployments', { name: `CI ${unique()}` });
  const send = (resource: string, body: unknown, authorization: string | null = `Bearer ${secret}`) => {
    const req = request(t.runtime.app).post(`/ingest/deployments/${app.id}/${resource}`).set('Content-Type', 'application/json').set('User-Agent', 'curl/8.5.0');
    if (authorization !== null) req.set('Authorization', authorization);
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  return { id: app.id, secret, send };
}

const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const deployment = (over: Record<string, unknown> = {}) => ({
  id: `run-${unique()}`,
  repository: 'acme/api',
  environment: 'production',
  status: 'success',
  sha: SHA,
  created_at: '2026-10-05T09:00:00+02:00',
  finished_at: '2026-10-05T09:12:30+02:00',
  ...over,
});

test('a deployment by repository full name is stored once, whatever the retries; a later finish moves it on', async () => {
  const app = await deploymentsApp();
  const body = deployment();
  const first = await app.send('deployments', body);
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ status: 'success', data: { event: 'deployment', result: 'applied', incidents: [], deployments: [{ external_id: body.id, result: 'created', repository_id: DEMO.repos.acmeApi }] } });
  const again = await app.send('deployments', body);
  expect(again.body.data.deployments).toEqual([{ external_id: body.id, result: 'unchanged', repository_id: DEMO.repos.acmeApi }]);
  // A re-run of the job that failed later.
  const rerun = await app.send('deployments', { ...body, status: 'failure', finished_at: '2026-10-05T08:30:00Z' });
  expect(rerun.body.data.deployments[0].result).toBe('updated');
  const stored = await Deployment.findAll({ where: { app_id: app.id } });
  expect(stored.map((d) => [d.repository_id, d.git_app_id, d.board_key, d.status, d.sha, d.finished_at.toISOString()])).toEqual([
    [DEMO.repos.acmeApi, 'gapp_acme_github', 'acme/api', 'failure', SHA, '2026-10-05T08:30:00.000Z'],
  ]);
  // The same by repository id; an earlier finish than the stored one is stale.
  const byId = await app.send('deployments', { ...body, id: `${body.id}-b`, repository: DEMO.repos.acmeApi });
  expect(byId.body.data.deployments[0]).toMatchObject({ result: 'created', repository_id: DEMO.repos.acmeApi });
  expect((await app.send('deployments', { ...body, finished_at: '2026-10-05T08:00:00Z' })).body.data.deployments[0].result).toBe('stale');
});

test('a repository the organization does not know is kept for it, and placed when the name is mapped', async () => {
  const app = await deploymentsApp();
  const body = deployment({ repository: 'checkout-service' });
  expect((await app.send('deployments', body)).body.data.deployments).toEqual([{ external_id: body.id, result: 'created', repository_id: null }]);
  // Another organization's repository is not this one's: by id or by name.
  expect((await app.send('deployments', deployment({ repository: DEMO.repos.globexCore }))).body.data.deployments[0].repository_id).toBeNull();
  expect((await app.send('deployments', deployment({ repository: 'globex/core' }))).body.data.deployments[0].repository_id).toBeNull();
  await t.runtime.writers.apps.map(app.id, 'checkout-service', { repositoryId: DEMO.repos.acmeWeb });
  expect(await Deployment.findOne({ where: { app_id: app.id, external_id: body.id } })).toMatchObject({ repository_id: DEMO.repos.acmeWeb, git_app_id: 'gapp_acme_github' });
  const token = await t.token();
  const listed = await t.get(`/v1/git/apps/gapp_acme_github/repositories/${DEMO.repos.acmeWeb}/deployments?created_at[gte]=2026-10-05&created_at[lte]=2026-10-05`, token);
  expect(listed.body.data.map((d: { id: string; app_id: string; service: string }) => [d.app_id, d.service])).toContainEqual([app.id, 'checkout-service']);
  // An incident of acme/web open when it finished makes it rework; unmapped again, it has no repository, and keeps
  // no mark that repository gave it.
  await app.send('incidents', { id: `INC-${unique()}`, title: 'Web 500s', created_at: '2026-10-05T06:00:00Z', resolved_at: '2026-10-05T08:00:00Z', repository: 'acme/web' });
  const placed = async () => {
    const d = (await Deployment.findOne({ where: { app_id: app.id, external_id: body.id } }))!;
    return [d.repository_id, d.git_app_id, Boolean(d.rework)];
  };
  expect(await placed()).toEqual([DEMO.repos.acmeWeb, 'gapp_acme_github', true]);
  await t.runtime.writers.apps.unmap(app.id, 'checkout-service');
  expect(await placed()).toEqual([null, null, false]);
  await t.runtime.writers.apps.map(app.id, 'checkout-service', { repositoryId: DEMO.repos.acmeWeb });
  // A team, not a repository, is refused for such a board.
  await expect(t.runtime.writers.apps.map(app.id, 'checkout-service', { teamId: DEMO.teams.platform })).rejects.toThrow(/mapped to a repository/);
});

test('an incident opened, then resolved by a later call with resolved_at; a retried opening call does not reopen it', async () => {
  const app = await deploymentsApp();
  const opened = { id: `INC-${unique()}`, title: 'Checkout returns 502', created_at: '2026-10-05T10:00:00Z', repository: 'acme/api', cause_sha: SHA.slice(0, 7) };
  expect((await app.send('incidents', opened)).body.data.incidents).toEqual([{ external_id: opened.id, result: 'created', repository_id: DEMO.repos.acmeApi }]);
  const resolved = { ...opened, resolved_at: '2026-10-05T10:45:00Z', fix_sha: 'a'.repeat(40) };
  expect((await app.send('incidents', resolved)).body.data.incidents[0].result).toBe('updated');
  expect((await app.send('incidents', opened)).body.data.incidents[0].result).toBe('stale');
  const incident = (await Incident.findOne({ where: { app_id: app.id, external_id: opened.id } }))!;
  expect([incident.resolved_at?.toISOString(), incident.cause_sha, incident.fix_sha]).toEqual(['2026-10-05T10:45:00.000Z', SHA.slice(0, 7), 'a'.repeat(40)]);
  // Without a repository: the organization's.
  const loose = { id: `INC-${unique()}`, title: 'Payments degraded', created_at: '2026-10-05T11:00:00Z' };
  expect((await app.send('incidents', loose)).body.data.incidents).toEqual([{ external_id: loose.id, result: 'created', repository_id: null }]);
});

test("an incident's urgency, priority and service, optional, as an incident tool would say them; a later call without them keeps them", async () => {
  const app = await deploymentsApp();
  const opened = { id: `INC-${unique()}`, title: 'Search timeouts', created_at: '2026-10-05T10:00:00Z', urgency: 'high', priority: 'p2', service: 'search' };
  expect((await app.send('incidents', opened)).body.data.incidents[0].result).toBe('created');
  const stored = () => Incident.findOne({ where: { app_id: app.id, external_id: opened.id } });
  expect(await stored()).toMatchObject({ urgency: 'high', priority: 'P2', service: 'search' });
  const { urgency: _, priority: __, service: ___, ...bare } = opened;
  expect((await app.send('incidents', { ...bare, resolved_at: '2026-10-05T10:20:00Z' })).body.data.incidents[0].result).toBe('updated');
  expect(await stored()).toMatchObject({ urgency: 'high', priority: 'P2', service: 'search', resolved_at: new Date('2026-10-05T10:20:00Z') });
});

describe('a call to fix: 4xx saying what to fix, storing nothing', () => {
  const cases: [string, string, unknown, number, RegExp][] = [
    ['a misspelt field', 'deployments', { ...deployment(), finishedAt: '2026-10-05T09:12:30Z' }, 400, /Unrecognized key: "finishedAt"/],
    ['no id', 'deployments', { ...deployment(), id: undefined }, 400, /id is required/],
    ['an abbreviated sha', 'deployments', deployment({ sha: SHA.slice(0, 7) }), 400, /full 40-digit sha/],
    ['a status still running', 'deployments', deployment({ status: 'running' }), 400, /status must be success or failure/],
    ['finished before it started', 'deployments', deployment({ finished_at: '2026-10-05T06:00:00Z' }), 400, /finished_at \(2026-10-05T06:00:00.000Z\) is before created_at \(2026-10-05T07:00:00.000Z\)/],
    ['a time without its zone', 'deployments', deployment({ created_at: '2026-10-05 09:00' }), 400, /created_at must be a time/],
    ['a year 1', 'deployments', deployment({ created_at: '0001-01-01T00:00:00Z' }), 400, /created_at must be a time/],
    ['an incident without a title', 'incidents', { id: 'INC-1', created_at: '2026-10-05T10:00:00Z' }, 400, /title is required/],
    ['an urgency PagerDuty does not have', 'incidents', { id: 'INC-1', title: 't', created_at: '2026-10-05T10:00:00Z', urgency: 'critical' }, 400, /urgency must be high or low/],
    ['a priority other than P1 to P5', 'incidents', { id: 'INC-1', title: 't', created_at: '2026-10-05T10:00:00Z', priority: 'SEV1' }, 400, /priority must be one of P1, P2, P3, P4, P5/],
    ['an empty service', 'incidents', { id: 'INC-1', title: 't', created_at: '2026-10-05T10:00:00Z', service: ' ' }, 400, /service must not be empty/],
    ['a resolution before the opening', 'incidents', { id: 'INC-1', title: 't', created_at: '2026-10-05T10:00:00Z', resolved_at: '2026-10-05T09:00:00Z' }, 400, /resolved_at .* is before created_at/],
    ['an array', 'deployments', [deployment()], 400, /Not a deployment payload/],
    ['another path', 'builds', deployment(), 404, /deployments deliveries go to \/ingest\/deployments\/\{app_id\}\/deployments or \/ingest\/deployments\/\{app_id\}\/incidents/],
  ];
  test.each(cases)('%s', async (_name, resource, body, status, message) => {
    const app = await deploymentsApp();
    const answer = await app.send(resource, body);
    expect([answer.status, answer.body.status, answer.body.error?.message]).toEqual([status, 'error', expect.stringMatching(message)]);
    expect(await Deployment.count({ where: { app_id: app.id } })).toBe(0);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
  });

  test('without the secret: 401', async () => {
    const app = await deploymentsApp();
    for (const authorization of [null, 'Bearer wrong', `Basic ${app.secret}`]) {
      const answer = await app.send('deployments', deployment(), authorization);
      expect([answer.status, answer.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    const bare = await request(t.runtime.app).post(`/ingest/deployments/${app.id}`).set('Authorization', `Bearer ${app.secret}`).set('Content-Type', 'application/json').send('{}');
    expect([bare.status, bare.body.error.message]).toEqual([404, expect.stringMatching(/deployments deliveries go to/)]);
    expect(await Deployment.count({ where: { app_id: app.id } })).toBe(0);
  });
});
