import { AiVendorSource, AuthorRepository, Commit, PullRequest, PullRequestActivity, Repository } from '../../db/models';
import { addToAuthorDays } from '../../src/services/git/rollups/authorDays';
import { addWorkDays } from '../../src/services/activity/memberActiveYears';
import { newId } from '../../src/persistence/changes/ids';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { defaultHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import cursorUsage from '../support/peers/cursor/daily-usage-data.json';
import { ScriptedPeer } from '../support/peers/scriptedPeer';
import { PastPoint, sendPastPoints } from '../support/peers/otlpJson';
import { insertHistory, Lab, sha } from '../support/data/metricsHistory';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * `ai-impact`'s `by_adoption_tier[]` (docs/metrics.md#ai-impact), worked by hand on DORA's week of
 * test/metrics/metrics.test.ts (the Lab: repository api, where ada commits and opens pull requests, and web, where
 * grace commits), with three teams: Core (ada), Web (grace and margaret) and Empty (margaret). Ada used Claude Code
 * that week (OTLP); grace used Cursor (its Admin API's documented row, pulled); margaret did nothing. A team's share
 * is the mean of its members' days with an AI tool ÷ their active days (a commit, a pull request opened or acted on,
 * AI use), an inactive member counting 0.
 *
 * Core: ada active March 2, 3, 5, 8 (commits), 2, 4, 6 (pull requests #2, #3, #4 opened), 4 (Claude Code): 1 AI day
 *   of 6 = 0.1667, under 25 % (by the old rule, one member of one active with AI, she made it 75 % and over). api's
 *   production deployments finished March 2–8: D1, D3, D5 succeeded, D2 failed and I1 blames D5; pull requests #1
 *   (48 h) and #2 (12 h): median 12 h.
 * Empty: margaret, inactive: 0, under 25 %; she authored nothing, so no repository: under 25 % is api's alone
 *   (3 ÷ 7 days = 0.4286 a day, 2 of 4 failed).
 * Web: grace active March 5 (Cursor) and 6 (commit c7): 1 of 2 = 0.5; margaret 0: (0.5 + 0) ÷ 2 = 0.25, 25–50 %
 *   (included: a tier's `from` is): web's D7 succeeded (1 ÷ 7 = 0.1429 a day, 0 of 1 failed); no pull request.
 * 50–75 % and 75 % and over: no team.
 */
let t: TestApp;
let cursor: ScriptedPeer;
let lab: Lab;
const WEEK = { from: '2026-03-02', to: '2026-03-08' };

beforeAll(async () => {
  t = await startTestApp({ COUNT_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE: '1' });
  cursor = new ScriptedPeer(() => {
    const [documented] = cursorUsage.data;
    const day = Date.parse('2026-03-05T00:00:00Z');
    return { status: 200, body: { data: [{ ...documented, email: DEMO.emails.grace, date: day, day: '2026-03-05' }], period: { startDate: day, endDate: day + 86_400_000 } } };
  });
  await cursor.start();
  lab = await insertHistory(t);
  await t.runtime.writers.teams.create(lab.organizationId, { name: 'Web', externalId: null }, [DEMO.users.grace, DEMO.users.margaret]);
  await sendPastPoints(t, lab.organizationId, [{ service: 'claude-code', name: 'claude_code.session.count', email: DEMO.emails.ada, at: '2026-03-04T10:00:00Z', value: 1 }]);
  const { app } = await t.runtime.writers.apps.create(lab.organizationId, 'cursor', { name: 'Cursor', vendor: { credential: 'key_cursor_0123456789', baseUrl: `${cursor.base}/cursor` } });
  const pulls = new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), { ...defaultHttp(outboundPolicy(t.config)), sleep: async () => undefined });
  expect((await pulls.pull(app.id, ['2026-03-05'])).stored).toEqual([{ day: '2026-03-05', accounts: 1, matched: 1 }]);
  expect(await AiVendorSource.count({ where: { app_id: app.id, failing: false } })).toBe(1);
});
afterAll(async () => {
  await cursor.stop();
  await t.close();
});

const aiImpact = (query: Record<string, string>, as: string) => t.get(`/v1/metrics/ai-impact?${new URLSearchParams(query)}`, as);

test("teams in four tiers by their members' share of active days with an AI tool, each with its delivery figures, by hand", async () => {
  const res = await aiImpact({ organization_id: lab.organizationId, ...WEEK }, await t.token({ user: DEMO.emails.ada }));
  expect(res.status).toBe(200);
  const team = (name: string, members: number, active: number, inactive: number, share: number) => ({
    id: expect.any(String),
    name,
    members,
    active_users: active,
    adoption_rate: active / members,
    inactive_members: inactive,
    ai_day_share: share,
  });
  expect(res.body.data.by_adoption_tier).toEqual([
    {
      tier: 'under_25',
      from: 0,
      below: 0.25,
      teams: [team('Core', 1, 1, 0, 0.1667), team('Empty', 1, 0, 1, 0)],
      time_to_merge_hours: { median: 12, n: 2 },
      deployments_per_day: 0.4286,
      change_failure_rate: { rate: 0.5, failed: 2, deployments: 4 },
    },
    {
      tier: '25_to_50',
      from: 0.25,
      below: 0.5,
      teams: [team('Web', 2, 1, 1, 0.25)],
      time_to_merge_hours: { median: null, n: 0 },
      deployments_per_day: 0.1429,
      change_failure_rate: { rate: 0, failed: 0, deployments: 1 },
    },
    { tier: '50_to_75', from: 0.5, below: 0.75, teams: [], time_to_merge_hours: { median: null, n: 0 }, deployments_per_day: null, change_failure_rate: { rate: null, failed: 0, deployments: 0 } },
    { tier: '75_and_over', from: 0.75, below: null, teams: [], time_to_merge_hours: { median: null, n: 0 }, deployments_per_day: null, change_failure_rate: { rate: null, failed: 0, deployments: 0 } },
  ]);
  // Each tier reads as one team covering its teams would: Core's own DORA figures agree.
  const dora = (await t.get(`/v1/metrics/dora?${new URLSearchParams({ team_id: lab.core, ...WEEK })}`, await t.token({ user: DEMO.emails.ada }))).body.data;
  expect([dora.deployment_frequency.per_day, dora.change_failure_rate.rate]).toEqual([0.4286, 0.5]);
});

test("the tiers are the organization's admins' only, and computed for them alone: a member sees null and the database is never asked; a team's figures have none", async () => {
  await t.runtime.writers.members.provision(lab.organizationId, { email: DEMO.emails.linus, name: 'Linus', role: 'collaborator', active: true, externalId: null, title: null });
  // Another window than the first test's: nothing cached stands in for the computations.
  const week = { organization_id: lab.organizationId, from: '2026-03-01', to: '2026-03-08' };
  const member = await statementsOf(aiImpact(week, await t.token({ user: DEMO.emails.linus })));
  expect(member.answer.status).toBe(200);
  expect(member.answer.body.data.by_adoption_tier).toBeNull();
  expect(member.answer.body.data.ai_assisted_commits.commits).toBeGreaterThan(0);
  expect(member.statements.some((sql) => sql.includes('commit_days'))).toBe(true);
  expect(member.statements.filter((sql) => READS_TEAMS_ADOPTION.test(sql) || sql.includes('author_repositories'))).toEqual([]);

  const admin = await statementsOf(aiImpact(week, await t.token({ user: DEMO.emails.ada })));
  expect(admin.answer.body.data.by_adoption_tier).toHaveLength(4);
  // The teams, and the tiers' repositories: members counted and grouped in the database, no member's id sent (the caller's own is read to know who asks).
  expect(admin.statements.filter((sql) => READS_TEAMS_ADOPTION.test(sql))).toHaveLength(1);
  expect(admin.statements.filter((sql) => sql.includes('author_repositories'))).toHaveLength(1);
  expect(admin.statements.filter((sql) => [DEMO.users.grace, DEMO.users.margaret].some((id) => sql.includes(id)))).toEqual([]);

  const teamFigures = await aiImpact({ team_id: lab.core, ...WEEK }, await t.token({ user: DEMO.emails.ada }));
  expect(teamFigures.body.data.by_adoption_tier).toBeNull();
});

test("a team that owns repositories brings those to its tier, not its members' (docs/metrics.md#what-a-team-covers)", async () => {
  const ada = await t.token({ user: DEMO.emails.ada });
  const tierOf = async (name: string) => {
    const tiers = (await aiImpact({ organization_id: lab.organizationId, ...WEEK }, ada)).body.data.by_adoption_tier;
    return tiers.find((tier: { tier: string }) => tier.tier === name);
  };
  // Core (under 25 %, with Empty, which has no repository) owns web: its D7, not api where ada commits.
  await t.runtime.writers.teamRepositories.set(lab.organizationId, lab.core, ['lab/web'], OPERATOR);
  try {
    const webAlone = { time_to_merge_hours: { median: null, n: 0 }, deployments_per_day: 0.1429, change_failure_rate: { rate: 0, failed: 0, deployments: 1 } };
    expect(await tierOf('under_25')).toMatchObject(webAlone);
    // 25–50 % (Web: grace's commits) covers web too: the two tiers' figures are read once.
    const { answer, statements } = await statementsOf(aiImpact({ organization_id: lab.organizationId, ...WEEK }, ada));
    expect(answer.body.data.by_adoption_tier.slice(0, 2)).toMatchObject([webAlone, webAlone]);
    expect(statements.filter((sql) => READS_TIER_DEPLOYMENTS.test(sql))).toHaveLength(1);
  } finally {
    await t.runtime.writers.teamRepositories.set(lab.organizationId, lab.core, null, OPERATOR);
  }
  expect(await tierOf('under_25')).toMatchObject({ time_to_merge_hours: { median: 12, n: 2 }, deployments_per_day: 0.4286 });
});

test("a member on teams of two tiers brings the repositories she authored in to each, and one on two teams of a tier once", async () => {
  // Pair (ada and grace): (0.1667 + 0.5) ÷ 2 = 0.3333, 25–50 % beside Web. Ada's api is then under 25 % (Core) and
  // 25–50 % (Pair); grace's web is 25–50 % once though she is on Web and Pair: api's D1, D2, D3, D5 and web's D7,
  // 4 successful of 5 finished (D2 failed, I1 blames D5), api's pull requests #1 (48 h) and #2 (12 h).
  const pair = await t.runtime.writers.teams.create(lab.organizationId, { name: 'Pair', externalId: null }, [DEMO.users.ada, DEMO.users.grace]);
  try {
    const tiers = (await aiImpact({ organization_id: lab.organizationId, ...WEEK }, await t.token({ user: DEMO.emails.ada }))).body.data.by_adoption_tier;
    const [under25, from25] = tiers;
    expect(under25).toMatchObject({ teams: [{ name: 'Core' }, { name: 'Empty' }], time_to_merge_hours: { median: 12, n: 2 }, deployments_per_day: 0.4286 });
    expect(from25).toMatchObject({
      teams: [{ name: 'Pair', ai_day_share: 0.3333 }, { name: 'Web' }],
      time_to_merge_hours: { median: 12, n: 2 },
      deployments_per_day: 0.5714,
      change_failure_rate: { rate: 0.4, failed: 2, deployments: 5 },
    });
  } finally {
    await t.runtime.writers.teams.delete(lab.organizationId, pair.id);
  }
});

test('one AI day among twenty active ones no longer lifts a team into a high tier; AI on most of them does (April, by hand)', async () => {
  // Ada: commits in api on April 1–19 and a comment on pull request #4 on April 20: 20 active days, Claude Code on
  // April 3 alone: 1 ÷ 20 = 0.05. Grace: commits in web on April 1–20, Claude Code on April 1–15: 15 ÷ 20 = 0.75.
  // Margaret: nothing. By the old rule (anyone with one AI day counts), Core and Solo were 1 of 1, 75 % and over.
  const days = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `2026-04-${String(from + i).padStart(2, '0')}`);
  const commitOn = async (user: string, repo: 'api' | 'web', dates: string[]) => {
    const repository = (await Repository.findByPk(lab.repositories[repo]))!;
    const commits = dates.map((d) => ({ author_id: user, created_at: new Date(`${d}T10:00:00Z`) }));
    for (const [i, c] of commits.entries()) {
      await Commit.create({
        id: newId('cmt'),
        repository_id: repository.id,
        git_app_id: repository.git_app_id,
        organization_id: lab.organizationId,
        sha: sha(`april ${user} ${i}`),
        message: 'April',
        author_id: user,
        author_name: user,
        additions: 1,
        deletions: 0,
        created_at: c.created_at,
      });
    }
    // As the commit writer keeps them beside the rows.
    await AuthorRepository.bulkCreate([{ user_id: user, repository_id: lab.repositories[repo], organization_id: lab.organizationId }], { ignoreDuplicates: true });
    await ChangeRunner.for(Commit.sequelize!).run(async (change) => {
      await addToAuthorDays(change.transaction, { organization_id: lab.organizationId }, commits);
      addWorkDays(change, lab.organizationId, commits.map((c) => ({ userId: c.author_id, at: c.created_at })));
    });
  };
  await commitOn(DEMO.users.ada, 'api', days(1, 19));
  await commitOn(DEMO.users.grace, 'web', days(1, 20));
  const open = (await PullRequest.findOne({ where: { repository_id: lab.repositories.api, number: 4 } }))!;
  await PullRequestActivity.create({
    id: newId('pra'),
    pull_request_id: open.id,
    repository_id: open.repository_id,
    git_app_id: open.git_app_id,
    organization_id: lab.organizationId,
    kind: 'comment',
    actor_id: DEMO.users.ada,
    pull_request_author_id: DEMO.users.ada,
    external_id: 'note:april',
    created_at: new Date('2026-04-20T09:00:00Z'),
  });
  // As the review writer keeps it beside the row.
  await ChangeRunner.for(PullRequestActivity.sequelize!).run(async (change) => addWorkDays(change, lab.organizationId, [{ userId: DEMO.users.ada, at: '2026-04-20' }]));
  const claudeCode = (email: string, dates: string[]): PastPoint[] => dates.map((d) => ({ service: 'claude-code', name: 'claude_code.session.count', email, at: `${d}T15:00:00Z`, value: 1 }));
  await sendPastPoints(t, lab.organizationId, [...claudeCode(DEMO.emails.ada, ['2026-04-03']), ...claudeCode(DEMO.emails.grace, days(1, 15))]);
  await t.runtime.writers.teams.create(lab.organizationId, { name: 'Solo', externalId: null }, [DEMO.users.grace]);

  const res = await aiImpact({ organization_id: lab.organizationId, from: '2026-04-01', to: '2026-04-28' }, await t.token({ user: DEMO.emails.ada }));
  expect(res.status).toBe(200);
  const teamsOf = (tier: { teams: { name: string; active_users: number; inactive_members: number; ai_day_share: number }[] }) =>
    tier.teams.map(({ name, active_users, inactive_members, ai_day_share }) => ({ name, active_users, inactive_members, ai_day_share }));
  expect(res.body.data.by_adoption_tier.map((tier: { tier: string; teams: [] }) => [tier.tier, teamsOf(tier)])).toEqual([
    [
      'under_25',
      [
        { name: 'Core', active_users: 1, inactive_members: 0, ai_day_share: 0.05 },
        { name: 'Empty', active_users: 0, inactive_members: 1, ai_day_share: 0 },
      ],
    ],
    // (0.75 + 0) ÷ 2: margaret, inactive, counts 0.
    ['25_to_50', [{ name: 'Web', active_users: 1, inactive_members: 1, ai_day_share: 0.375 }]],
    ['50_to_75', []],
    ['75_and_over', [{ name: 'Solo', active_users: 1, inactive_members: 0, ai_day_share: 0.75 }]],
  ]);
});

const READS_TEAMS_ADOPTION = /FROM teams t\s+JOIN team_memberships m/;
const READS_TIER_DEPLOYMENTS = /SUM\(CASE WHEN d\.status = 'success' THEN 1 ELSE 0 END\) AS deployments/;

/** The statements the database is sent while a request is answered. */
async function statementsOf<T>(request: PromiseLike<T>): Promise<{ answer: T; statements: string[] }> {
  const spy = jest.spyOn(t.runtime.sequelize, 'query');
  try {
    const answer = await request;
    return { answer, statements: spy.mock.calls.map(([sql]) => String(sql)) };
  } finally {
    spy.mockRestore();
  }
}
