import { GitApp } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { computeMetric } from '../../src/services/metrics';
import { organizationScope } from '../../src/services/metrics/reading/scope';
import { windowOf } from '../../src/services/metrics/reading/window';
import { AppliedMetricSettings, DEFAULT_METRIC_SETTINGS, MetricSettingsDocument } from '../../src/services/metrics/settings/document';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createLab, sha } from '../support/data/metricsHistory';
import { unique } from '../support/common';

/**
 * Which deployment environments count as production is the organization's setting (docs/metrics.md#what-counts),
 * applied when the figures read: the writers keep every environment apart, each deployment's changes counted from
 * the previous success of its own environment (docs/metrics.md#dora-the-four-keys-method). Worked by hand, for the
 * week of Monday June 1, 2026, lab/api:
 *
 *   commits k1 Jun 1 08:00, k2 Jun 1 20:00, k3 Jun 2 08:00 (AI-assisted), k4 Jun 3 08:00
 *   E1 production-eu success Jun 1 12:00   ships k1 (4 h)
 *   P1 production    success Jun 2 10:00   ships k1 (26 h), k2 (14 h), k3 (2 h): production's first success
 *   E2 production-eu success Jun 2 14:00   ships k2 (18 h), k3 (6 h): from E1, production-eu's previous success (from P1, it would ship nothing)
 *   P2 production    failure Jun 3 09:00   would have shipped k4
 *   P3 production    success Jun 3 12:00   ships k4 (4 h): from P1
 *   E3 production-eu failure Jun 3 13:00   would have shipped k4; rework: incident I1 open Jun 3 12:30–13:30
 *   E4 production-eu success Jun 4 10:00   ships k4 (26 h): from E2
 *
 * The default, production alone: 2 deployments (P1, P3), lead times 2, 4, 14, 26 h (median: the 2nd, 4 h), 1 of 3
 * failed, no rework; AI impact: P1 shipped k3 (0 of 1 failed), the others 1 of 2.
 * ['production', 'production-*']: 5 deployments, lead times 2, 4, 4, 6, 14, 18, 26, 26 h (median: the 4th, 6 h),
 * 2 of 7 failed, 1 rework (E3); AI impact: P1 and E2 shipped k3 (0 of 2 failed), the others 2 of 5.
 */
let t: TestApp;
const WEEK = windowOf(new Date('2026-06-01T00:00:00Z'), new Date('2026-06-07T00:00:00Z'));
const NOW = new Date('2026-06-10T00:00:00Z');
const at = (day: number, time: string) => new Date(`2026-06-0${day}T${time}:00.000Z`);

/** The default settings but their production environments, read as an admin's would be (lowercased). */
const applied = (production_environments: string[]): AppliedMetricSettings => ({ version: 1, settings: MetricSettingsDocument.parse({ ...DEFAULT_METRIC_SETTINGS, production_environments }), botsGeneration: 0 });
const DEFAULTS = applied(['production']);

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => t.close());

/** A lab organization whose one repository received `activities` (given the repository) through the git writer. */
async function labWith(activities: (repository: RepositoryRef) => Activity[]): Promise<string> {
  const { lab, gitAppId } = await createLab(t, `Production environments ${unique()}`);
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository: RepositoryRef = { providerId: `environments-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: at(1, '00:00') };
  for (const [i, activity] of activities(repository).entries()) {
    const outcome = await t.runtime.writers.gitActivity.receive({ gitApp, id: `environments-${unique()}-${i}`, event: activity.kind }, activity);
    expect(outcome.result).toBe('applied');
  }
  return lab.organizationId;
}

const commit = (key: string, createdAt: Date, ai = false) => ({
  sha: sha(key), message: ai ? `${key}\n\nCo-Authored-By: Claude <noreply@anthropic.com>` : key, authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt,
});
const deployment = (repository: RepositoryRef, externalId: string, environment: string, status: 'success' | 'failure', key: string, finishedAt: Date): Activity => ({
  kind: 'deployment',
  repository,
  deployment: { externalId, environment, status, sha: sha(key), createdAt: new Date(finishedAt.getTime() - 600_000), finishedAt },
});

describe('deployments to production-eu and production of one repository', () => {
  let organizationId: string;
  beforeAll(async () => {
    organizationId = await labWith((repository) => [
      { kind: 'push', repository, commits: [commit('k1', at(1, '08:00')), commit('k2', at(1, '20:00')), commit('k3', at(2, '08:00'), true), commit('k4', at(3, '08:00'))] },
      deployment(repository, 'E1', 'production-eu', 'success', 'k1', at(1, '12:00')),
      // Delivered out of order: the writers recompute each environment from its own previous success.
      deployment(repository, 'P3', 'production', 'success', 'k4', at(3, '12:00')),
      deployment(repository, 'P1', 'production', 'success', 'k3', at(2, '10:00')),
      deployment(repository, 'E2', 'production-eu', 'success', 'k3', at(2, '14:00')),
      deployment(repository, 'P2', 'production', 'failure', 'k4', at(3, '09:00')),
      deployment(repository, 'E4', 'production-eu', 'success', 'k4', at(4, '10:00')),
      deployment(repository, 'E3', 'production-eu', 'failure', 'k4', at(3, '13:00')),
      {
        kind: 'incident',
        repository,
        incident: { externalId: 'I1', title: 'Checkout errors', causeSha: null, fixSha: null, createdAt: at(3, '12:30'), resolvedAt: at(3, '13:30'), updatedAt: at(3, '13:30') },
      },
    ]);
  });
  const dora = (settings: AppliedMetricSettings) => computeMetric('dora', organizationScope(organizationId), WEEK, NOW, undefined, undefined, settings);
  const aiImpact = (settings: AppliedMetricSettings) => computeMetric('aiImpact', organizationScope(organizationId), WEEK, NOW, undefined, { adoptionTiers: true }, settings);

  test('with the default settings only production counts: its frequency, lead time from its own previous success, failure rate and rework', async () => {
    const figures = await dora(DEFAULTS);
    expect(figures.deployment_frequency).toMatchObject({ deployments: 2, per_day: 0.2857 });
    expect(figures.lead_time_for_changes).toMatchObject({ median_hours: 4, changes: 4 });
    expect(figures.change_failure_rate).toMatchObject({ rate: 0.3333, failed: 1, deployments: 3 });
    expect(figures.rework_rate).toMatchObject({ rework: 0, deployments: 3 });
  });

  test("with ['production', 'production-*'] both count, production-eu's lead times from production-eu's previous success", async () => {
    const figures = await dora(applied(['production', 'production-*']));
    expect(figures.deployment_frequency).toMatchObject({ deployments: 5, per_day: 0.7143 });
    expect(figures.lead_time_for_changes).toMatchObject({ median_hours: 6, changes: 8 });
    expect(figures.change_failure_rate).toMatchObject({ rate: 0.2857, failed: 2, deployments: 7 });
    expect(figures.rework_rate).toMatchObject({ rate: 0.1429, rework: 1, deployments: 7 });
    // production-eu alone: its lead times 4, 18, 6, 26 h; median the 2nd of 4 sorted.
    expect((await dora(applied(['production-eu']))).lead_time_for_changes).toMatchObject({ median_hours: 6, changes: 4 });
  });

  test("AI impact's failure rate and the adoption tiers' deployments count the same environments", async () => {
    const byDefault = await aiImpact(DEFAULTS);
    expect(byDefault.change_failure_rate).toEqual({ ai: { rate: 0, failed: 0, deployments: 1 }, other: { rate: 0.5, failed: 1, deployments: 2 } });
    const both = await aiImpact(applied(['production', 'production-*']));
    expect(both.change_failure_rate).toEqual({ ai: { rate: 0, failed: 0, deployments: 2 }, other: { rate: 0.4, failed: 2, deployments: 5 } });
    // Team Core (ada, who authored every commit) is in the lowest tier: lab/api is its repository.
    const core = (figures: typeof both) => figures.by_adoption_tier?.find((tier) => tier.tier === 'under_25');
    expect(core(byDefault)).toMatchObject({ deployments_per_day: 0.2857, change_failure_rate: { failed: 1, deployments: 3 } });
    expect(core(both)).toMatchObject({ deployments_per_day: 0.7143, change_failure_rate: { failed: 2, deployments: 7 } });
  });
});

describe('names and globs as the settings give them', () => {
  // One commit, x1, then a success to each environment: each ships x1 (the first success of its environment), but
  // PROD, the same environment as prod, ships nothing new.
  let organizationId: string;
  const ENVIRONMENTS = ['prod', 'PROD', 'prod-1', 'prod-12', 'prod_eu', 'prodXeu', 'eu%', 'eu-west'];
  beforeAll(async () => {
    organizationId = await labWith((repository) => [
      { kind: 'push', repository, commits: [commit('x1', at(1, '00:00'))] },
      ...ENVIRONMENTS.map((environment, i) => deployment(repository, `X${i}`, environment, 'success', 'x1', at(1, `0${i + 1}:00`))),
    ]);
  });
  const counted = async (production_environments: string[]) => {
    const figures = await computeMetric('dora', organizationScope(organizationId), WEEK, NOW, undefined, undefined, applied(production_environments));
    return { deployments: figures.deployment_frequency.deployments, changes: figures.lead_time_for_changes.changes, median: figures.lead_time_for_changes.median_hours };
  };

  test('PROD matches prod, whatever the case of either', async () => {
    expect(await counted(['PROD'])).toEqual({ deployments: 2, changes: 1, median: 1 });
    expect(await counted(['prod'])).toEqual({ deployments: 2, changes: 1, median: 1 });
  });

  test('a glob prod-? matches prod-1, not prod-12', async () => {
    expect(await counted(['prod-?'])).toEqual({ deployments: 1, changes: 1, median: 3 });
    expect(await counted(['prod-*'])).toEqual({ deployments: 2, changes: 2, median: 3 });
  });

  test('% and _ in a name or a glob are matched literally', async () => {
    expect(await counted(['prod_eu'])).toEqual({ deployments: 1, changes: 1, median: 5 });
    expect(await counted(['prod_*'])).toEqual({ deployments: 1, changes: 1, median: 5 });
    expect(await counted(['eu%'])).toEqual({ deployments: 1, changes: 1, median: 7 });
    expect(await counted(['eu%*'])).toEqual({ deployments: 1, changes: 1, median: 7 });
    expect(await counted(['staging'])).toEqual({ deployments: 0, changes: 0, median: null });
  });
});
