import request from 'supertest';
import { Commit, Repository } from '../../db/models';
import { refreshShippedChanges } from '../../src/services/git/rollups/shippedChanges';
import { addToCommitDays } from '../../src/services/git/rollups/commitDays';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { deliverReviewHistory, ReviewProvider, Step } from '../support/data/reviewHistory';
import { insertHistory, sha } from '../support/data/metricsHistory';
import { sendPastPoints } from '../support/peers/otlpJson';

/**
 * `GET /v1/metrics/ai-impact` (docs/metrics.md#ai-review-and-cost-figures) on a week of commits and pull requests delivered as GitHub, GitLab
 * and Bitbucket Cloud send them, with one day of Claude Code telemetry sent over OTLP/JSON; every figure worked out here by hand.
 *
 * Commits: k1 (ada, Claude's co-author trailer: AI by its trailer), k2 (ada), k3 (grace, whose Claude Code telemetry
 * reports lines it wrote that day: AI by telemetry), k4 (margaret), k5 (grace, the day after: not AI). Pull requests merged (hours to merge, pickup, lines):
 *   #1 ada       AI by its head commit k1        8   2   150
 *   #2 ada       other                           2   –   10
 *   #3 margaret  AI by its description's footer  5   –   10
 *   #4 grace     AI by its head commit k3        6   1   42
 *   #5 margaret  other (k4, then k5 pushed)      10  8   400
 */
const AI_HISTORY: Step[] = [
  { do: 'push', key: 'k1', by: 'ada', at: '2026-03-02T08:00:00Z', message: 'Add a cache\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'open', pr: 1, by: 'ada', at: '2026-03-02T09:00:00Z', head: 'k1', size: [120, 30] },
  { do: 'comment', pr: 1, by: 'grace', at: '2026-03-02T11:00:00Z' },
  { do: 'merge', pr: 1, by: 'ada', at: '2026-03-02T17:00:00Z' },
  { do: 'push', key: 'k2', by: 'ada', at: '2026-03-03T09:00:00Z', message: 'Fix a typo' },
  { do: 'open', pr: 2, by: 'ada', at: '2026-03-03T10:00:00Z', head: 'k2', size: [5, 5] },
  { do: 'merge', pr: 2, by: 'ada', at: '2026-03-03T12:00:00Z' },
  // The mark only in the pull request's description; its head commit is not known here.
  { do: 'open', pr: 3, by: 'margaret', at: '2026-03-04T08:00:00Z', body: 'Speeds up the importer.\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)', size: [10, 0] },
  { do: 'merge', pr: 3, by: 'margaret', at: '2026-03-04T13:00:00Z' },
  { do: 'push', key: 'k3', by: 'grace', at: '2026-03-05T08:00:00Z', message: 'Refactor the reader' },
  { do: 'open', pr: 4, by: 'grace', at: '2026-03-05T09:00:00Z', head: 'k3', size: [40, 2] },
  { do: 'comment', pr: 4, by: 'margaret', at: '2026-03-05T10:00:00Z' },
  { do: 'merge', pr: 4, by: 'grace', at: '2026-03-05T15:00:00Z' },
  { do: 'push', key: 'k4', by: 'margaret', at: '2026-03-06T07:00:00Z', message: 'Tidy up' },
  { do: 'open', pr: 5, by: 'margaret', at: '2026-03-06T08:00:00Z', head: 'k4', size: [300, 100] },
  { do: 'push', key: 'k5', by: 'grace', at: '2026-03-06T09:00:00Z', message: 'A plain change' },
  { do: 'commit', pr: 5, by: 'grace', at: '2026-03-06T09:30:00Z', key: 'k5' },
  { do: 'approved', pr: 5, by: 'grace', at: '2026-03-06T16:00:00Z' },
  { do: 'merge', pr: 5, by: 'margaret', at: '2026-03-06T18:00:00Z' },
];

let t: TestApp;
let token: string;
const labs: Record<ReviewProvider, string> = { github: '', gitlab: '', bitbucket: '' };

/** Grace's Claude Code session on the evening of March 5, in which it wrote 40 lines (its documented `lines_of_code.count`, `type: added`). */
const graceUsedClaudeCode = (organizationId: string) =>
  sendPastPoints(t, organizationId, [
    { service: 'claude-code', name: 'claude_code.session.count', email: DEMO.emails.grace, at: '2026-03-05T20:00:00Z', value: 1 },
    { service: 'claude-code', name: 'claude_code.lines_of_code.count', email: DEMO.emails.grace, at: '2026-03-05T20:00:00Z', value: 40, attributes: { type: 'added' } },
  ]);

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000', COUNT_CACHE_TTL_MS: '0' });
  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    labs[provider] = (await deliverReviewHistory(t, provider, AI_HISTORY)).organizationId;
    await graceUsedClaudeCode(labs[provider]);
  }
  token = await t.token();
});
afterAll(async () => t.close());

const WEEK = { from: '2026-03-02', to: '2026-03-08' };
const aiImpact = (query: Record<string, string>, as = token) => t.get(`/v1/metrics/ai-impact?${new URLSearchParams(query)}`, as);
const none = { median: null, p75: null, n: 0 };
const noDeployments = { rate: null, failed: 0, deployments: 0 };
/** An adoption tier without teams, and a one-member team whose member was active that week but never with an AI tool. */
const tier = (name: string, from: number, below: number | null) => ({ tier: name, from, below, teams: [], time_to_merge_hours: { median: null, n: 0 }, deployments_per_day: null, change_failure_rate: noDeployments });
const idle = (name: string) => ({ id: expect.any(String), name, members: 1, active_users: 0, adoption_rate: 0, inactive_members: 0, ai_day_share: 0 });

describe.each(['github', 'gitlab', 'bitbucket'] as const)('the week, delivered by %s', (provider) => {
  test('every figure by hand', async () => {
    const res = await aiImpact({ organization_id: labs[provider], ...WEEK });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      scope: { organization_id: labs[provider], team_id: null, repositories: 'all' },
      from: '2026-03-02',
      to: '2026-03-08',
      interval: null,
      ai_assisted_commits: { count: 2, commits: 5, share: 0.4, by_evidence: { trailer: 1, telemetry: 1, vendor_lines: 0 } },
      ai_assisted_prs: { count: 3, merged: 5, share: 0.6 },
      // AI [5, 6, 8]: ranks 2 and 3; the others [2, 10]: ranks 1 and 2.
      time_to_merge_hours: { ai: { median: 6, p75: 8, n: 3 }, other: { median: 2, p75: 10, n: 2 } },
      // #1 and #4 [1, 2]; #5 [8] (Grace's pushed commit is no review).
      pickup_hours: { ai: { median: 1, p75: 2, n: 2 }, other: { median: 8, p75: 8, n: 1 } },
      // GitLab's and Bitbucket's webhooks give no line counts.
      pr_size_lines: provider === 'github' ? { ai: { median: 42, p75: 150, n: 3 }, other: { median: 10, p75: 400, n: 2 } } : { ai: none, other: none },
      change_failure_rate: { ai: noDeployments, other: noDeployments },
      // Neither Core (ada: her mark is in a commit, not telemetry) nor Empty (margaret) used an AI tool: both under
      // 25 %, over the one repository ada and margaret commit in: all five pull requests, [2, 5, 6, 8, 10] hours.
      by_adoption_tier: [
        { ...tier('under_25', 0, 0.25), teams: [idle('Core'), idle('Empty')], time_to_merge_hours: { median: 6, n: 5 }, deployments_per_day: 0 },
        tier('25_to_50', 0.25, 0.5),
        tier('50_to_75', 0.5, 0.75),
        tier('75_and_over', 0.75, null),
      ],
    });
  });

  test('a daily series, adding up to the totals', async () => {
    const data = (await aiImpact({ organization_id: labs[provider], ...WEEK, interval: 'day' })).body.data;
    const hours = (h: number | null) => (h === null ? none : { median: h, p75: h, n: 1 });
    const day = (start: string, commits: number, ai_assisted_commits: number, merged: number, ai_assisted_prs: number, ai: number | null, other: number | null) => ({
      start,
      commits,
      ai_assisted_commits,
      merged,
      ai_assisted_prs,
      time_to_merge_hours: { ai: hours(ai), other: hours(other) },
    });
    expect(data.series).toEqual([
      day('2026-03-02', 1, 1, 1, 1, 8, null),
      day('2026-03-03', 1, 0, 1, 0, null, 2),
      day('2026-03-04', 0, 0, 1, 1, 5, null),
      day('2026-03-05', 1, 1, 1, 1, 6, null),
      // k4 and k5: Grace's lines were the day before.
      day('2026-03-06', 2, 0, 1, 0, null, 10),
      day('2026-03-07', 0, 0, 0, 0, null, null),
      day('2026-03-08', 0, 0, 0, 0, null, null),
    ]);
  });
});

test("the change failure rate of deployments that shipped AI-assisted commits against the others (DORA's week of test/metrics/metrics.test.ts)", async () => {
  const lab = await insertHistory(t);
  // Marked after the fact, with what the writers keep beside the commits.
  const marked = await Commit.findAll({ where: { organization_id: lab.organizationId, sha: [sha('c1'), sha('c5')] } });
  await Commit.update({ ai_assisted: true, ai_evidence: 'trailer' }, { where: { id: marked.map((c) => c.id) } });
  for (const id of Object.values(lab.repositories)) await refreshShippedChanges(null, id, null);
  await Commit.sequelize!.transaction(async (transaction) => {
    for (const c of marked) await addToCommitDays(transaction, { id: c.repository_id, organization_id: c.organization_id }, [{ createdAt: c.created_at, commits: 0, evidence: 'trailer' }]);
  });
  const data = (await aiImpact({ organization_id: lab.organizationId, ...WEEK }, await t.token())).body.data;
  // D1 shipped c1 (and c2), D5 shipped c5 and was blamed by I1; D2 (failed, with c3), D3 and D7 shipped none marked.
  expect(data.change_failure_rate).toEqual({ ai: { rate: 0.5, failed: 1, deployments: 2 }, other: { rate: 0.3333, failed: 1, deployments: 3 } });
  // c1 was created on March 1, before the window.
  expect(data.ai_assisted_commits).toEqual({ count: 1, commits: 6, share: 0.1667, by_evidence: { trailer: 1, telemetry: 0, vendor_lines: 0 } });
});

test("the author's day of AI-written lines counts whichever comes first: telemetry before the push marks the commit as the push stores it", async () => {
  const lab = await deliverReviewHistory(t, 'github', AI_HISTORY.filter((s) => s.do === 'push'), graceUsedClaudeCode);
  const data = (await aiImpact({ organization_id: lab.organizationId, ...WEEK }, await t.token())).body.data;
  // k1 by its trailer, k3 by Grace's day: as when the telemetry came after.
  expect(data.ai_assisted_commits).toEqual({ count: 2, commits: 5, share: 0.4, by_evidence: { trailer: 1, telemetry: 1, vendor_lines: 0 } });
  const marked = await Commit.findAll({ where: { organization_id: lab.organizationId }, attributes: ['sha', 'ai_evidence'], order: [['created_at', 'ASC']] });
  expect(marked.map((c) => c.ai_evidence)).toEqual(['trailer', null, 'telemetry', null, null]);
});

/**
 * Whichever comes first, a pull request or the AI-assisted commit it carries: #1's head, #3's pushed commit and #4's
 * merge commit arrive after it; #2's pushed commit before. #5 carries plain commits only.
 */
const LATE_COMMITS: Step[] = [
  { do: 'open', pr: 1, by: 'ada', at: '2026-03-02T09:00:00Z', head: 'k1' },
  { do: 'push', key: 'k1', by: 'ada', at: '2026-03-02T08:00:00Z', message: 'Add a cache\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'merge', pr: 1, by: 'ada', at: '2026-03-02T17:00:00Z' },
  { do: 'push', key: 'k2', by: 'ada', at: '2026-03-03T08:00:00Z', message: 'Start the reader' },
  { do: 'open', pr: 2, by: 'ada', at: '2026-03-03T09:00:00Z', head: 'k2' },
  { do: 'push', key: 'k3', by: 'ada', at: '2026-03-03T10:00:00Z', message: 'Finish the reader\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'commit', pr: 2, by: 'ada', at: '2026-03-03T10:05:00Z', key: 'k3' },
  { do: 'merge', pr: 2, by: 'ada', at: '2026-03-03T12:00:00Z' },
  { do: 'push', key: 'k4', by: 'grace', at: '2026-03-04T08:00:00Z', message: 'Start the writer' },
  { do: 'open', pr: 3, by: 'grace', at: '2026-03-04T09:00:00Z', head: 'k4' },
  { do: 'commit', pr: 3, by: 'grace', at: '2026-03-04T10:05:00Z', key: 'k5' },
  { do: 'push', key: 'k5', by: 'grace', at: '2026-03-04T10:00:00Z', message: 'Finish the writer\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'merge', pr: 3, by: 'grace', at: '2026-03-04T12:00:00Z' },
  { do: 'push', key: 'k6', by: 'margaret', at: '2026-03-05T08:00:00Z', message: 'Tidy up' },
  { do: 'open', pr: 4, by: 'margaret', at: '2026-03-05T09:00:00Z', head: 'k6' },
  { do: 'merge', pr: 4, by: 'margaret', at: '2026-03-05T12:00:00Z', mergeCommit: 'k7' },
  { do: 'push', key: 'k7', by: 'margaret', at: '2026-03-05T12:00:00Z', message: 'Merge the tidy-up\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'push', key: 'k8', by: 'margaret', at: '2026-03-06T08:00:00Z', message: 'A plain change' },
  { do: 'open', pr: 5, by: 'margaret', at: '2026-03-06T09:00:00Z', head: 'k8' },
  { do: 'merge', pr: 5, by: 'margaret', at: '2026-03-06T12:00:00Z' },
];

test.each(['github', 'gitlab', 'bitbucket'] as const)('a pull request is AI-assisted whichever arrives first, it or its AI-assisted commit (%s)', async (provider) => {
  const lab = await deliverReviewHistory(t, provider, LATE_COMMITS);
  const data = (await aiImpact({ organization_id: lab.organizationId, ...WEEK }, await t.token())).body.data;
  expect(data.ai_assisted_prs).toEqual({ count: 4, merged: 5, share: 0.8 });
});

test("DORA over the week is the same whichever provider delivered its commits (deployments from the deployments API)", async () => {
  const figures: Record<string, unknown> = {};
  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    const organizationId = labs[provider];
    const { app, secret } = await t.runtime.writers.apps.create(organizationId, 'deployments', { name: `CI of the ${provider} lab` });
    const repository = await Repository.findOne({ where: { organization_id: organizationId } });
    const deploy = (id: string, key: string, status: string, at: string) =>
      request(t.runtime.app)
        .post(`/ingest/deployments/${app.id}/deployments`)
        .set('Content-Type', 'application/json')
        .set('Authorization', `Bearer ${secret}`)
        .send({ id, repository: repository!.id, environment: 'production', status, sha: sha(key), created_at: at, finished_at: at });
    expect((await deploy('d1', 'k2', 'success', '2026-03-03T18:00:00Z')).status).toBe(200);
    expect((await deploy('d2', 'k5', 'failure', '2026-03-06T20:00:00Z')).status).toBe(200);
    const { scope, ...data } = (await t.get(`/v1/metrics/dora?${new URLSearchParams({ organization_id: organizationId, ...WEEK })}`, token)).body.data;
    expect(scope).toEqual({ organization_id: organizationId, team_id: null, repositories: 'all' });
    figures[provider] = data;
  }
  expect(figures.github).toMatchObject({ deployment_frequency: { deployments: 1 }, change_failure_rate: { failed: 1, deployments: 2 }, lead_time_for_changes: { changes: 2 } });
  expect(figures.gitlab).toEqual(figures.github);
  expect(figures.bitbucket).toEqual(figures.github);
});

test('a team: its repositories only; another organization is 403', async () => {
  const linus = await t.token({ user: DEMO.emails.linus });
  expect((await aiImpact({ organization_id: DEMO.orgs.acme }, linus)).status).toBe(200);
  expect((await aiImpact({ team_id: DEMO.teams.platform }, linus)).status).toBe(200);
  expect((await aiImpact({ organization_id: DEMO.orgs.globex }, linus)).status).toBe(403);
});
