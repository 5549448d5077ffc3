import { MetricSetting, Organization } from '../../db/models';
import { newId } from '../../src/persistence/changes/ids';
import { parseStoredDocument } from '../../src/services/metrics/settings/document';
import { applySettings, NON_DEFAULT_SETTINGS, restoringArgs } from '../../scripts/bench/metricSettings';
import { metricRequests } from '../../scripts/bench/requests';
import type { Fixtures } from '../../scripts/bench/database';
import { startTestApp, TestApp } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';

let t: TestApp;
let cli: (...args: string[]) => Promise<CliRun>;

beforeAll(async () => {
  t = await startTestApp();
  cli = appCli(t, 'metricsSettings');
});
afterAll(async () => t?.close());

/** The benchmark's runner of `npm run metrics-settings`: its output, or a failure saying why. */
const metricsSettings = async (args: string[]) => {
  const run = await cli(...args);
  if (run.code !== 0) throw new Error(`metrics-settings ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
};

const documentOf = async (organizationId: string) => parseStoredDocument((await MetricSetting.findByPk(organizationId))!.document);

test("DORA's years are measured cold once more under non-default settings, after both scopes' rows, named by them", () => {
  const fixtures: Fixtures = { user_id: 'usr_1', organization_id: 'org_acme', team_id: 'team_1', id: 'app_1', repo: 'repo_1', last_day: '2026-10-31' };
  const rows = metricRequests(fixtures);
  const dora = rows.filter((r) => r.base.startsWith('/v1/metrics/dora?'));
  const year = (scope: string) => `/v1/metrics/dora?${scope}&from=2025-10-31&to=2026-10-31`;
  expect(dora.slice(-2)).toEqual([
    { path: year('organization_id=org_acme'), base: year('organization_id=org_acme'), cacheOff: true, settings: NON_DEFAULT_SETTINGS },
    { path: year('team_id=team_1'), base: year('team_id=team_1'), cacheOff: true, settings: NON_DEFAULT_SETTINGS },
  ]);
  expect(rows.filter((r) => r.settings)).toHaveLength(2);
  expect(NON_DEFAULT_SETTINGS.label).toContain('prod-*, staging-?');
});

test('the settings are set through the CLI as an operator would, and put back whole, once, however often undone', async () => {
  const organizationId = newId('org');
  await Organization.create({ id: organizationId, name: `Bench ${unique()}`, created_at: new Date('2026-01-01T00:00:00Z') });
  await metricsSettings(['set', '--org', organizationId, '--production-environments', 'live,prod-eu', '--incident-services', 'checkout,PNE3JZM']);
  const before = await documentOf(organizationId);

  const logged: string[] = [];
  const restore = await applySettings(metricsSettings, organizationId, NON_DEFAULT_SETTINGS, (s) => logged.push(s));
  expect(await documentOf(organizationId)).toEqual({ ...before, production_environments: ['production', 'prod-*', 'staging-?'], incident_urgency: 'high', incident_priorities: ['P1', 'P2'] });

  await Promise.all([restore(), restore()]);
  await restore();
  expect(await documentOf(organizationId)).toEqual(before);
  // One version to set them and one to put them back, after the one made above.
  expect((await MetricSetting.findByPk(organizationId))!.version).toBe(3);
  expect(logged).toHaveLength(2);
});

test('settings a comma-separated list could not put back are refused before anything changes', () => {
  expect(restoringArgs({ production_environments: ['production'], incident_urgency: 'any', incident_priorities: [], incident_services: [] })).toEqual([
    '--production-environments',
    'production',
    '--incident-urgency',
    'any',
    '--incident-priorities',
    'any',
    '--incident-services',
    'any',
  ]);
  expect(() => restoringArgs({ production_environments: ['eu,west'], incident_urgency: 'any', incident_priorities: [], incident_services: [] })).toThrow(/holds a comma/);
});
