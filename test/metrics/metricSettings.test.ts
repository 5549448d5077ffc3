import request from 'supertest';
import { AuditEntry, GitApp, MetricSetting } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { environmentCondition, likePattern, matchesEnvironment } from '../../src/services/metrics/settings/document';
import { parseCommand } from '../../scripts/metricsSettings';
import { UsageError } from '../../scripts/cli';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { createLab, sha } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';

/**
 * What counts, per organization (docs/metrics.md#what-counts): the settings read and changed by admins
 * (`settings.metrics.*`) and the operator (`npm run metrics-settings`), each change a new version, audited; every
 * metric answer names the version it was computed under, and a change applies to the whole history at once.
 */
let t: TestApp;
let ada: SettingsBrowser;
let linus: SettingsBrowser;
let token: string;
let lab: string;
let cli: (...args: string[]) => Promise<CliRun>;

const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => new Date(`2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`);

beforeAll(async () => {
  t = await startTestApp();
  const origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
  linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
  token = await t.token();
  cli = appCli(t, 'metricsSettings');
  // One repository deploying to production, to production-eu and to staging, a day each.
  const created = await createLab(t, `What counts ${unique()}`);
  lab = created.lab.organizationId;
  const gitApp = (await GitApp.findByPk(created.gitAppId))!;
  const repository: RepositoryRef = { providerId: `counts-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: at(1, '00:00') };
  const deployment = (id: string, environment: string, day: number): Activity => ({
    kind: 'deployment',
    repository,
    deployment: { externalId: id, environment, status: 'success', sha: sha(id), createdAt: at(day, '09:50'), finishedAt: at(day, '10:00') },
  });
  const activities = [deployment('D1', 'production', 4), deployment('D2', 'Production-EU', 5), deployment('D3', 'staging', 6)];
  for (const [i, activity] of activities.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `counts-${unique()}-${i}`, event: activity.kind }, activity);
});
afterAll(async () => t?.close());

/** Every incident counts (test/metrics/incidentSettings.test.ts). */
const INCIDENTS_DEFAULT = { incident_urgency: 'any', incident_priorities: [], incident_services: [] };
/** DORA's causes, failed jobs kept (test/metrics/changeFailureSettings.test.ts). */
const CHANGE_FAILURE_DEFAULT = { change_failure: { failed_deployment: true, incident: true, revert_within_hours: 24, hotfix_patterns: [] } };
/** Pull requests measured from their opening (test/metrics/draftsFromReady.test.ts). */
const DRAFTS_DEFAULT = { drafts_from_ready: false };

const BOTS_DEFAULT = { bot_accounts: [], bot_default_list: true };

const dora = () => t.get(`/v1/metrics/dora?organization_id=${lab}&from=${WEEK.from}&to=${WEEK.to}`, token);
/** Ada administers both acme and the lab. */
const settingsOf = (organizationId: string) => ada.query('settings.metrics.get', { organization_id: organizationId });
const update = (organizationId: string, settings: unknown, who = ada) => who.mutate('settings.metrics.update', { organization_id: organizationId, settings });

test("an organization that never changed them has DORA's defaults, version 0, and its figures say so", async () => {
  const res = await settingsOf(DEMO.orgs.acme);
  expect(res.status).toBe(200);
  expect(res.body.result.data).toEqual({
    organization_id: DEMO.orgs.acme,
    version: 0,
    updated_at: null,
    production_environments: ['production'],
    // No repository has its own (test/metrics/repositoryProduction.test.ts).
    repository_production_environments: {},
    ...INCIDENTS_DEFAULT,
    ...DRAFTS_DEFAULT,
    ...CHANGE_FAILURE_DEFAULT,
    ...BOTS_DEFAULT,
    defaults: { production_environments: ['production'], repository_production_environments: {}, ...INCIDENTS_DEFAULT, ...DRAFTS_DEFAULT, ...BOTS_DEFAULT, ...CHANGE_FAILURE_DEFAULT },
    recomputation: null,
  });
  const answer = await t.get(`/v1/metrics/dora?organization_id=${DEMO.orgs.acme}`, token);
  expect(answer.status).toBe(200);
  expect(answer.body.meta).toEqual({ settings_version: 0 });
});

test('production-eu counts once the settings say so, for the whole history at once, and each answer names its version', async () => {
  const before = await dora();
  expect(before.body.meta).toEqual({ settings_version: 0 });
  expect(before.body.data.deployment_frequency.deployments).toBe(1);

  const changed = await update(lab, { production_environments: ['production', 'production-*'] });
  expect(changed.status).toBe(200);
  expect(changed.body.result.data).toMatchObject({ version: 1, production_environments: ['production', 'production-*'] });

  const after = await dora();
  expect(after.body.meta).toEqual({ settings_version: 1 });
  expect(after.body.data.deployment_frequency.deployments).toBe(2);
  // The same request again is the kept answer, of the same version.
  expect((await dora()).body).toEqual(after.body);

  // Back to the default: a new version, not the old one, and the figures of the default again.
  await update(lab, { production_environments: ['production'] });
  const back = await dora();
  expect(back.body.meta).toEqual({ settings_version: 2 });
  expect(back.body.data.deployment_frequency.deployments).toBe(1);
});

test('a change made while figures are being computed: that answer is all the old version, the next all the new one', async () => {
  const read = MetricSetting.findByPk.bind(MetricSetting);
  // The computation reads the settings once; the change lands right after, before a single figure is read.
  const reading = jest.spyOn(MetricSetting, 'findByPk').mockImplementationOnce(async (organizationId) => {
    const before = await read(organizationId);
    await update(lab, { production_environments: ['production', 'production-*'] });
    return before;
  });
  // A series the other tests never asked for: computed, not a kept answer.
  const daily = () => t.get(`/v1/metrics/dora?organization_id=${lab}&from=${WEEK.from}&to=${WEEK.to}&interval=day`, token);
  try {
    const during = await daily();
    expect(reading).toHaveBeenCalled();
    const version = during.body.meta.settings_version;
    expect(during.body.data.deployment_frequency.deployments).toBe(1);
    expect(during.body.data.series.map((b: { deployments: number }) => b.deployments)).toEqual([1, 0, 0, 0, 0, 0, 0]);
    const after = await daily();
    expect(after.body.meta).toEqual({ settings_version: version + 1 });
    expect(after.body.data.deployment_frequency.deployments).toBe(2);
    expect(after.body.data.series.map((b: { deployments: number }) => b.deployments)).toEqual([1, 1, 0, 0, 0, 0, 0]);
  } finally {
    reading.mockRestore();
    await update(lab, { production_environments: ['production'] });
  }
});

test('each change is audited with every setting before and after; one that changes nothing makes no version and no entry', async () => {
  const { version } = (await settingsOf(lab)).body.result.data;
  const res = await update(lab, { production_environments: ['Live', 'PROD-?'] });
  expect(res.body.result.data).toMatchObject({ version: version + 1, production_environments: ['live', 'prod-?'] });
  const entries = await AuditEntry.findAll({ where: { organization_id: lab, action: 'metric_settings.updated' } });
  const last = entries.find((e) => JSON.parse(e.details).version === version + 1)!;
  expect(last.actor_user_id).toBe(DEMO.users.ada);
  expect(JSON.parse(last.details)).toEqual({ version: version + 1, changed: { production_environments: { from: ['production'], to: ['live', 'prod-?'] } } });

  const again = await update(lab, { production_environments: ['live', 'prod-?'] });
  expect(again.body.result.data.version).toBe(version + 1);
  expect(await AuditEntry.count({ where: { organization_id: lab, action: 'metric_settings.updated' } })).toBe(entries.length);
  await update(lab, { production_environments: ['production'] });
});

test('mistakes are 400 with what to fix, and nothing changes', async () => {
  const cases: [unknown, string][] = [
    [{ production_environments: [] }, 'at least one environment'],
    [{ production_environments: 'production' }, 'production_environments must be a list'],
    [{ production_environments: ['  '] }, 'must not be empty'],
    [{ production_environments: ['prod\u0007'] }, 'control characters'],
    [{ production_environments: ['x'.repeat(101)] }, 'at most 100 characters'],
    [{ production_environments: Array.from({ length: 51 }, (_, i) => `env-${i}`) }, 'at most 50'],
    [{ bots: ['dependabot'] }, 'No setting bots; the settings are production_environments'],
    [{}, 'Name at least one setting'],
    ['production', 'must be an object'],
  ];
  for (const [settings, message] of cases) {
    const res = await update(DEMO.orgs.acme, settings);
    expect([res.status, res.body.error.message]).toEqual([400, expect.stringContaining(message)]);
  }
  expect((await settingsOf(DEMO.orgs.acme)).body.result.data.version).toBe(0);
});

test('a change comes from the signed-in page only: a bearer token, another origin and no CSRF token change nothing', async () => {
  const body = JSON.stringify({ organization_id: DEMO.orgs.acme, settings: { production_environments: ['live'] } });
  const post = (headers: Record<string, string>) => request(t.runtime.app).post('/trpc/settings.metrics.update').set({ 'Content-Type': 'application/json', ...headers }).send(body);
  expect((await post({ Authorization: `Bearer ${token}` })).status).toBe(401);
  expect((await post({ Cookie: ada.cookie, 'X-CSRF-Token': ada.csrfToken, Origin: 'https://evil.example' })).status).toBe(403);
  expect((await post({ Cookie: ada.cookie, Origin: new URL(publicBase(t.config)).origin })).status).toBe(403);
  expect((await settingsOf(DEMO.orgs.acme)).body.result.data.version).toBe(0);
});

test("admins only: a member is refused, another organization's settings are not shown", async () => {
  expect((await linus.query('settings.metrics.get', { organization_id: DEMO.orgs.acme })).status).toBe(403);
  expect((await update(DEMO.orgs.acme, { production_environments: ['live'] }, linus)).status).toBe(403);
  expect((await settingsOf(DEMO.orgs.globex)).status).toBe(403);
  expect((await settingsOf('org_nope')).status).toBe(404);
});

test("the AI tools' seat prices: every tool listed, set and unset by an admin, audited; mistakes 400, members refused", async () => {
  const seats = (who = ada, organizationId = lab) => who.query('settings.metrics.seatPrices', { organization_id: organizationId });
  const setSeat = (tool: unknown, monthly: unknown, who = ada, organizationId = lab) => who.mutate('settings.metrics.setSeatPrice', { organization_id: organizationId, tool, monthly });
  const listed = (await seats()).body.result.data;
  expect(listed.tools.map((t: { tool: string }) => t.tool)).toEqual(expect.arrayContaining(['claude_code', 'copilot', 'cursor']));
  expect(listed.tools.every((t: { monthly: number | null }) => t.monthly === null)).toBe(true);

  const priced = await setSeat('cursor', 40);
  expect(priced.status).toBe(200);
  expect(priced.body.result.data.tools.find((t: { tool: string }) => t.tool === 'cursor')).toEqual({ tool: 'cursor', monthly: 40 });
  expect((await setSeat('cursor', 32.5)).status).toBe(200);
  expect((await setSeat('cursor', null)).body.result.data.tools.find((t: { tool: string }) => t.tool === 'cursor').monthly).toBeNull();
  expect((await setSeat('cursor', null)).status).toBe(200);
  const entries = (await AuditEntry.findAll({ where: { organization_id: lab } })).filter((e) => e.action.startsWith('cost_rate.')).map((e) => [e.action, e.actor_user_id, JSON.parse(e.details)]);
  expect(entries).toEqual(
    expect.arrayContaining([
      ['cost_rate.set', DEMO.users.ada, { subject: 'tool', subject_id: 'cursor', amount: 40, currency: 'USD' }],
      ['cost_rate.set', DEMO.users.ada, { subject: 'tool', subject_id: 'cursor', from: { amount: 40, currency: 'USD' }, amount: 32.5, currency: 'USD' }],
      ['cost_rate.unset', DEMO.users.ada, { subject: 'tool', subject_id: 'cursor', from: { amount: 32.5, currency: 'USD' } }],
    ]),
  );
  expect(entries).toHaveLength(3);

  for (const [tool, monthly, message] of [
    ['notepad', 10, 'notepad'],
    ['cursor', -1, '0 or more'],
    ['cursor', '12', 'monthly must be a seat price'],
  ] as const) {
    const res = await setSeat(tool, monthly);
    expect([res.status, res.body.error.message]).toEqual([400, expect.stringContaining(message)]);
  }
  // Linus is a member of Acme, not one of its admins.
  expect((await seats(linus, DEMO.orgs.acme)).status).toBe(403);
  expect((await setSeat('cursor', 1, linus, DEMO.orgs.acme)).status).toBe(403);
});

test('environments are matched as names or globs, without regard to case, and a LIKE wildcard in a name is literal', () => {
  const entries = ['production', 'prod-?', 'eu_*', '100%'];
  expect(['PRODUCTION', 'prod-1', 'eu_west', 'EU_', '100%'].every((e) => matchesEnvironment(entries, e))).toBe(true);
  expect(['production-eu', 'prod-12', 'euxwest', '1000'].some((e) => matchesEnvironment(entries, e))).toBe(false);
  expect(likePattern('eu_*')).toBe('eu!_%');
  expect(environmentCondition(['production', 'prod-?'], 'd.environment')).toEqual({
    sql: "(LOWER(d.environment) IN (:production_names) OR LOWER(d.environment) LIKE :production_glob_0 ESCAPE '!')",
    replacements: { production_names: ['production'], production_glob_0: 'prod-_' },
  });
});

test('npm run metrics-settings: show and set, the operator audited; usage mistakes exit 2 saying what to give', async () => {
  const set = await cli('set', '--org', lab, '--production-environments', 'production, prod-*', '--json');
  expect(set.code).toBe(0);
  const view = JSON.parse(set.stdout);
  expect(view).toMatchObject({ organization_id: lab, production_environments: ['production', 'prod-*'] });
  const shown = await cli('show', '--org', lab);
  expect(shown.stdout).toContain(`What counts in organization ${lab}: version ${view.version}, changed`);
  expect(shown.stdout).toContain('production environments: production, prod-*   (default: production)');
  const entry = (await AuditEntry.findAll({ where: { organization_id: lab, action: 'metric_settings.updated' } })).find((e) => JSON.parse(e.details).version === view.version)!;
  expect([entry.actor_type, entry.actor_user_id]).toEqual([OPERATOR.type, null]);
  expect((await cli('show', '--org', 'org_nope')).code).toBe(1);

  expect(() => parseCommand(['set', '--org', lab])).toThrow(
    new UsageError(
      'set needs a setting to change: --production-environments <list>, --incident-urgency high|any, --incident-priorities <list>|any, --incident-services <list>|any, --drafts-from-ready true|false, --failed-deployment-fails true|false, --incident-fails true|false, --revert-within-hours <hours>|none, --hotfix-patterns <list>|none, --bots <list>|none or --bot-default-list true|false',
    ),
  );
  expect(() => parseCommand(['set', '--org', lab, '--production-environments', ' , '])).toThrow(UsageError);
  expect(() => parseCommand(['show'])).toThrow(new UsageError('show needs --org <organization id>'));
  expect(() => parseCommand(['reset', '--org', lab])).toThrow(new UsageError('unknown command "reset"; use show, set, team-repos or repo-production'));
});
