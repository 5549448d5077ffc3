import { QueryTypes } from 'sequelize';
import { Deployment, GitApp } from '../../db/models';
import { Random } from '../../db/demo/random';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createLab, sha } from '../support/data/metricsHistory';
import { eraseDeletedRepositories } from '../support/peers/ingest';
import { durationBands, sizeBands } from '../../db/rollups/bands';
import { ChangeRunner } from '../../src/persistence/changes/change';

/**
 * What the git writers keep beside the rows, against what the figures computed from the rows before: the daily
 * commit counts (commitDays.ts), and what each deployment shipped, to every environment apart (shippedChanges.ts,
 * leadTimes.ts), against what the figures computed at read time before (the oracle below: its changes are the commits
 * after the finish of the previous successful deployment to its environment, compared lowercased, up to its own;
 * blamed when an incident's cause names its commit; rework when it finished while an incident was open or an incident names its fix). The same
 * deliveries arrive in many orders, late ones included: a deployment between two stored ones, an AI-assisted commit
 * after the deployment that shipped it, a status that changed, an incident naming its cause later.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
const START = Date.parse('2026-03-02T00:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR);

/** Production in two spellings, a second production and staging: each environment's deployments have their own previous success. */
const environmentOf = (r: number) => (r < 0.2 ? 'staging' : r < 0.4 ? 'Production-EU' : r < 0.7 ? 'Production' : 'production');

function deliveriesOf(random: Random, repository: RepositoryRef): Activity[] {
  const commits = Array.from({ length: 24 }, (_, i) => ({
    sha: sha(`oracle ${repository.name} ${i}`),
    message: random.float() < 0.25 ? `Change ${i}\n\nCo-Authored-By: Claude <noreply@anthropic.com>` : `Change ${i}`,
    authorName: 'Ada Lovelace',
    authorEmail: DEMO.emails.ada,
    authorUsername: null,
    createdAt: at(i * 3 + random.float()),
  }));
  const activity: Activity[] = commits.map((c) => ({ kind: 'push', repository, commits: [c] }));
  for (let i = 0; i < 10; i++) {
    const finishedAt = at(6 + i * 7 + random.float() * 3);
    const deployment = {
      externalId: `d${i}`,
      environment: environmentOf(random.float()),
      status: random.float() < 0.3 ? ('failure' as const) : ('success' as const),
      sha: commits[Math.min(commits.length - 1, Math.floor((i * 7) / 3))].sha,
      createdAt: new Date(finishedAt.getTime() - 600_000),
      finishedAt,
    };
    activity.push({ kind: 'deployment', repository, deployment });
    // A re-run that finished later, with the other outcome: soon, or after the next deployment.
    if (random.float() < 0.3) {
      const rerun = { ...deployment, status: deployment.status === 'success' ? ('failure' as const) : ('success' as const), finishedAt: new Date(finishedAt.getTime() + (random.chance(0.5) ? 1 : 10) * HOUR) };
      activity.push({ kind: 'deployment', repository, deployment: rerun });
    }
  }
  for (let i = 0; i < 3; i++) {
    const cause = commits[Math.floor(random.float() * commits.length)].sha.slice(0, 7 + i);
    const fix = commits[Math.floor(random.float() * commits.length)].sha.slice(0, 8);
    // Resolved after a few hours, or still open; the second names its fix.
    const incident = {
      externalId: `i${i}`, title: `Incident ${i}`, causeSha: i === 2 ? null : cause, fixSha: i === 1 ? fix : null,
      createdAt: at(20 + i * 15), resolvedAt: i === 2 ? null : at(20 + i * 15 + 4 * i + 3), updatedAt: at(20 + i * 15),
    };
    activity.push({ kind: 'incident', repository, incident });
    // Its cause named later, and resolved.
    if (i === 2) activity.push({ kind: 'incident', repository, incident: { ...incident, causeSha: cause, resolvedAt: at(79), updatedAt: at(80) } });
  }
  return activity;
}

const day = (d: unknown) => (d instanceof Date ? d.toISOString() : String(d)).slice(0, 10);

/** The daily counts kept: the repository's rows, then the organization's. */
async function commitDays(repositoryId: string, organizationId: string) {
  const rows = await Deployment.sequelize!.query<{ scope_id: string; day: unknown; commits: number; ai_commits: number; trailer_commits: number; telemetry_commits: number; vendor_lines_commits: number }>(
    'SELECT scope_id, day, commits, ai_commits, trailer_commits, telemetry_commits, vendor_lines_commits FROM commit_days WHERE scope_id IN (:ids) ORDER BY scope_id <> :repositoryId, day',
    { type: QueryTypes.SELECT, replacements: { ids: [repositoryId, organizationId], repositoryId } },
  );
  return rows.map((r) => [r.scope_id === repositoryId ? 'repository' : 'organization', day(r.day), ...[r.commits, r.ai_commits, r.trailer_commits, r.telemetry_commits, r.vendor_lines_commits].map(Number)]);
}

/** The same counted from the commits (the lab's organization has this one repository). */
async function commitDaysOracle(repositoryId: string, organizationId: string) {
  const dayOf = Deployment.sequelize!.getDialect() === 'mysql' ? 'DATE(created_at)' : 'date(created_at)';
  const count = (column: string, id: string) =>
    Deployment.sequelize!.query<{ day: unknown; commits: number; ai_commits: number; trailer: number; telemetry: number; vendor_lines: number }>(
      `SELECT ${dayOf} AS day, COUNT(*) AS commits, SUM(CASE WHEN ai_evidence IS NOT NULL THEN 1 ELSE 0 END) AS ai_commits,
         ${['trailer', 'telemetry', 'vendor_lines'].map((e) => `SUM(CASE WHEN ai_evidence = '${e}' THEN 1 ELSE 0 END) AS ${e}`).join(', ')}
       FROM commits WHERE ${column} = :id GROUP BY ${dayOf} ORDER BY day`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
  const rows = async (scope: string, column: string, id: string) =>
    (await count(column, id)).map((r) => [scope, day(r.day), ...[r.commits, r.ai_commits, r.trailer, r.telemetry, r.vendor_lines].map(Number)]);
  return [...(await rows('repository', 'repository_id', repositoryId)), ...(await rows('organization', 'organization_id', organizationId))];
}

/** Each author's days in the organization and their previous days (authorDays.ts), as kept and as the commits give them. */
async function authorDays(organizationId: string) {
  const rows = await Deployment.sequelize!.query<{ user_id: string; day: unknown; previous_day: unknown }>(
    'SELECT user_id, day, previous_day FROM author_days WHERE organization_id = :organizationId ORDER BY user_id, day',
    { type: QueryTypes.SELECT, replacements: { organizationId } },
  );
  return rows.map((r) => [r.user_id, day(r.day), r.previous_day === null ? null : day(r.previous_day)]);
}

async function authorDaysOracle(organizationId: string) {
  const dayOf = Deployment.sequelize!.getDialect() === 'mysql' ? 'DATE(created_at)' : 'date(created_at)';
  const rows = await Deployment.sequelize!.query<{ user_id: string; day: unknown }>(
    `SELECT DISTINCT author_id AS user_id, ${dayOf} AS day FROM commits WHERE organization_id = :organizationId AND author_id IS NOT NULL ORDER BY user_id, day`,
    { type: QueryTypes.SELECT, replacements: { organizationId } },
  );
  return rows.map((r, i) => [r.user_id, day(r.day), i > 0 && rows[i - 1].user_id === r.user_id ? day(rows[i - 1].day) : null]);
}

/** The changes kept as shipped: which deployment shipped which commit, to which environment, with its lead time and band. */
async function shippedChanges(repositoryId: string) {
  const rows = await Deployment.sequelize!.query<{ deployment_id: string; commit_id: string; environment: string; lead_ms: number; band: number }>(
    'SELECT deployment_id, commit_id, environment, lead_ms, band FROM shipped_changes WHERE repository_id = :repositoryId ORDER BY deployment_id, commit_id',
    { type: QueryTypes.SELECT, replacements: { repositoryId } },
  );
  return rows.map((r) => [r.deployment_id, r.commit_id, r.environment, Number(r.lead_ms), Number(r.band)]);
}

/** What DORA read at request time before, for every environment: each successful deployment's commits, from the finish of the previous one to its environment. */
async function shippedChangesOracle(repositoryId: string) {
  const mysql = Deployment.sequelize!.getDialect() === 'mysql';
  const leadMs = mysql ? 'TIMESTAMPDIFF(MICROSECOND, c.created_at, x.finished_at) DIV 1000' : 'CAST(ROUND((julianday(x.finished_at) - julianday(c.created_at)) * 86400000) AS INTEGER)';
  const rows = await Deployment.sequelize!.query<{ deployment_id: string; commit_id: string; environment: string; lead_ms: number }>(
    `SELECT x.id AS deployment_id, c.id AS commit_id, x.environment, ${leadMs} AS lead_ms
     FROM (SELECT d.id, d.repository_id, LOWER(d.environment) AS environment, d.finished_at, d.sha, d.status,
             COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = d.repository_id AND LOWER(p.environment) = LOWER(d.environment)
               AND p.status = 'success' AND p.finished_at < d.finished_at), '1970-01-01') AS previous_finished_at
           FROM deployments d WHERE d.repository_id = :repositoryId AND d.status = 'success') AS x
     JOIN commits c ON c.repository_id = x.repository_id AND c.created_at <= x.finished_at AND c.created_at > x.previous_finished_at
     ORDER BY x.id, c.id`,
    { type: QueryTypes.SELECT, replacements: { repositoryId } },
  );
  return rows.map((r) => [r.deployment_id, r.commit_id, r.environment, Number(r.lead_ms), durationBands.of(Number(r.lead_ms))]);
}

/** The daily band counts kept per environment, of the repository, then of the organization (zeros left by moves dropped). */
async function leadTimeDays(repositoryId: string, organizationId: string) {
  const rows = await Deployment.sequelize!.query<{ scope_id: string; day: unknown; environment: string; band: number; changes: number }>(
    'SELECT scope_id, day, environment, band, changes FROM lead_time_days WHERE scope_id IN (:ids) AND changes <> 0 ORDER BY scope_id <> :repositoryId, day, environment, band',
    { type: QueryTypes.SELECT, replacements: { ids: [repositoryId, organizationId], repositoryId } },
  );
  return rows.map((r) => [r.scope_id === repositoryId ? 'repository' : 'organization', day(r.day), r.environment, Number(r.band), Number(r.changes)]);
}

/** The same counted from the shipped changes (the lab's organization has this one repository). */
async function leadTimeDaysOracle(repositoryId: string) {
  const dayOf = Deployment.sequelize!.getDialect() === 'mysql' ? 'DATE(finished_at)' : 'date(finished_at)';
  const rows = await Deployment.sequelize!.query<{ day: unknown; environment: string; band: number; changes: number }>(
    `SELECT ${dayOf} AS day, environment, band, COUNT(*) AS changes FROM shipped_changes WHERE repository_id = :repositoryId GROUP BY ${dayOf}, environment, band ORDER BY day, environment, band`,
    { type: QueryTypes.SELECT, replacements: { repositoryId } },
  );
  const counted = rows.map((r) => [day(r.day), r.environment, Number(r.band), Number(r.changes)]);
  return [...counted.map((r) => ['repository', ...r]), ...counted.map((r) => ['organization', ...r])];
}

/** The read-time computation the stored flags replace, for deployments to every environment. */
async function oracle(repositoryId: string) {
  const mysql = Deployment.sequelize!.getDialect() === 'mysql';
  const startsWith = mysql ? 'LEFT(d.sha, CHAR_LENGTH(i.cause_sha)) = i.cause_sha' : 'substr(d.sha, 1, length(i.cause_sha)) = i.cause_sha';
  const fixedBy = mysql ? 'LEFT(x.sha, CHAR_LENGTH(i.fix_sha)) = i.fix_sha' : 'substr(x.sha, 1, length(i.fix_sha)) = i.fix_sha';
  return Deployment.sequelize!.query<{ id: string; shipped_ai: number; blamed: number; rework: number }>(
    `SELECT x.id,
       CASE WHEN EXISTS (SELECT 1 FROM incidents i WHERE i.repository_id = x.repository_id
         AND ((x.finished_at > i.created_at AND (i.resolved_at IS NULL OR x.finished_at <= i.resolved_at)) OR (i.fix_sha IS NOT NULL AND ${fixedBy}))) THEN 1 ELSE 0 END AS rework,
       CASE WHEN EXISTS (SELECT 1 FROM commits c WHERE c.repository_id = x.repository_id AND c.created_at <= x.finished_at AND c.created_at > x.previous_finished_at
         AND c.ai_evidence IS NOT NULL) THEN 1 ELSE 0 END AS shipped_ai,
       CASE WHEN EXISTS (SELECT 1 FROM incidents i JOIN deployments d ON d.id = x.id WHERE i.repository_id = x.repository_id AND i.cause_sha IS NOT NULL AND ${startsWith}) THEN 1 ELSE 0 END AS blamed
     FROM (SELECT d.id, d.repository_id, d.finished_at, d.sha, d.status,
             COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = d.repository_id AND LOWER(p.environment) = LOWER(d.environment)
               AND p.status = 'success' AND p.finished_at < d.finished_at), '1970-01-01') AS previous_finished_at
           FROM deployments d WHERE d.repository_id = :repositoryId) AS x
     ORDER BY x.id`,
    { type: QueryTypes.SELECT, replacements: { repositoryId } },
  );
}

async function deliver(seed: string, activities: (repository: RepositoryRef) => Activity[]) {
  const { gitAppId } = await createLab(t, `Oracle ${seed}`);
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository: RepositoryRef = { providerId: `oracle-${seed}`, name: 'api', fullName: 'oracle/api', defaultBranch: 'main', isPrivate: false, createdAt: at(0) };
  return Promise.all([]).then(async () => {
    for (const [i, activity] of activities(repository).entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `oracle-${seed}-${i}`, event: activity.kind }, activity);
    return Deployment.findAll({ where: { git_app_id: gitAppId }, order: [['finished_at', 'ASC']] });
  });
}

test("a deployment re-run past the next one: the next one's previous success moves back, and it ships the earlier AI-assisted commit", async () => {
  const commit = (key: string, hours: number, ai: boolean) => ({
    sha: sha(key), message: ai ? 'Add a cache\n\nCo-Authored-By: Claude <noreply@anthropic.com>' : 'Fix a typo', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: at(hours),
  });
  const deployment = (id: string, key: string, hours: number, status: 'success' | 'failure') => ({ externalId: id, environment: 'production', status, sha: sha(key), createdAt: at(hours - 0.1), finishedAt: at(hours) });
  const stored = await deliver('rerun', (repository) => [
    { kind: 'push', repository, commits: [commit('r1', 1, true)] },
    { kind: 'deployment', repository, deployment: deployment('A', 'r1', 2, 'success') },
    { kind: 'push', repository, commits: [commit('r2', 3, false)] },
    { kind: 'deployment', repository, deployment: deployment('B', 'r2', 4, 'success') },
    { kind: 'deployment', repository, deployment: deployment('A', 'r1', 5, 'failure') },
  ]);
  // B (4 h) is now the first success: it shipped r1 and r2; A, failed at 5 h, would have shipped nothing new.
  expect(stored.map((d) => [d.external_id, d.status, Boolean(d.shipped_ai)])).toEqual([
    ['B', 'success', true],
    ['A', 'failure', false],
  ]);
});

/** The shipped_ai flags the histories below ended with. */
const shippedAiSeen = new Set<number>();

test.each([1, 2, 3, 4, 5, 6])('the flags kept by the writers equal the read-time computation, deliveries in order %i', async (seed) => {
  const { gitAppId } = await createLab(t, `Oracle ${seed}`);
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository: RepositoryRef = { providerId: `oracle-${seed}`, name: 'api', fullName: 'oracle/api', defaultBranch: 'main', isPrivate: false, createdAt: at(0) };
  const random = new Random(`shipped changes ${seed}`);
  const deliveries = random.shuffle(deliveriesOf(random, repository));
  const flags = async (repositoryId: string) => {
    const stored = await Deployment.findAll({ where: { repository_id: repositoryId }, order: [['id', 'ASC']] });
    return stored.map((d) => [d.id, Number(d.shipped_ai), Number(d.blamed), Number(d.rework)]);
  };
  let expected: Awaited<ReturnType<typeof oracle>> = [];
  // Exact after every write, not only at the end.
  for (const [i, activity] of deliveries.entries()) {
    const outcome = await t.runtime.writers.gitActivity.receive({ gitApp, id: `oracle-${seed}-${i}`, event: activity.kind }, activity);
    expect(outcome.result).toBe('applied');
    const repositoryId = outcome.repository_id!;
    expected = await oracle(repositoryId);
    expect([i, activity.kind, await flags(repositoryId)]).toEqual([i, activity.kind, expected.map((o) => [o.id, Number(o.shipped_ai), Number(o.blamed), Number(o.rework)])]);
    expect([i, activity.kind, await commitDays(repositoryId, gitApp.organization_id)]).toEqual([i, activity.kind, await commitDaysOracle(repositoryId, gitApp.organization_id)]);
    expect([i, activity.kind, await authorDays(gitApp.organization_id)]).toEqual([i, activity.kind, await authorDaysOracle(gitApp.organization_id)]);
    expect([i, activity.kind, await shippedChanges(repositoryId)]).toEqual([i, activity.kind, await shippedChangesOracle(repositoryId)]);
    expect([i, activity.kind, await leadTimeDays(repositoryId, gitApp.organization_id)]).toEqual([i, activity.kind, await leadTimeDaysOracle(repositoryId)]);
  }
  // Gone with its repository once erased after its grace, from the organization's days too.
  const deleted = await t.runtime.writers.gitActivity.receive({ gitApp, id: `oracle-${seed}-deleted`, event: 'repository' }, { kind: 'repository', action: 'deleted', repository });
  expect(deleted).toMatchObject({ result: 'applied', repository_deleted: true });
  expect(await eraseDeletedRepositories(t)).toBeGreaterThanOrEqual(1);
  const left = await commitDays(deleted.repository_id!, gitApp.organization_id);
  expect(left.filter(([scope, , ...counts]) => scope !== 'organization' || counts.some((n) => n !== 0))).toEqual([]);
  expect(await authorDays(gitApp.organization_id)).toEqual([]);
  expect(await shippedChanges(deleted.repository_id!)).toEqual([]);
  expect((await leadTimeDays(deleted.repository_id!, gitApp.organization_id)).filter(([, , , , changes]) => changes !== 0)).toEqual([]);
  for (const o of expected) shippedAiSeen.add(Number(o.shipped_ai));
});

test.each([1, 2, 3])('a page of history keeps the same, each repository\'s deployments recomputed once per page however many it brings, a run of them read and inserted at once, pages of order %i', async (seed) => {
  const { gitAppId } = await createLab(t, `Deployment pages ${seed}`);
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository: RepositoryRef = { providerId: `deployment-pages-${seed}`, name: 'api', fullName: 'pages/api', defaultBranch: 'main', isPrivate: false, createdAt: at(0) };
  const random = new Random(`deployment pages ${seed}`);
  const deliveries = random.shuffle(deliveriesOf(random, repository));
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const statements: string[] = [];
  t.runtime.sequelize.addHook('afterQuery', 'deploymentPages', (_options: unknown, query: object) => void statements.push(String(Reflect.get(query, 'sql') ?? '')));
  let mostDeployments = 0;
  let mostInOneRun = 0;
  try {
    for (let start = 0; start < deliveries.length; start += 8) {
      const page = deliveries.slice(start, start + 8);
      statements.length = 0;
      const outcomes = await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, gitApp, page));
      const repositoryId = outcomes[0].repository_id!;
      const expected = await oracle(repositoryId);
      const flags = (await Deployment.findAll({ where: { repository_id: repositoryId }, order: [['id', 'ASC']] })).map((d) => [d.id, Number(d.shipped_ai), Number(d.blamed), Number(d.rework)]);
      expect([start, flags]).toEqual([start, expected.map((o) => [o.id, Number(o.shipped_ai), Number(o.blamed), Number(o.rework)])]);
      expect([start, await shippedChanges(repositoryId)]).toEqual([start, await shippedChangesOracle(repositoryId)]);
      expect([start, await leadTimeDays(repositoryId, gitApp.organization_id)]).toEqual([start, await leadTimeDaysOracle(repositoryId)]);
      // The lead times are kept again once for each push, and once for all of the page's deployments.
      const deployments = page.filter((a) => a.kind === 'deployment').length;
      const pushes = page.filter((a) => a.kind === 'push').length;
      const leadTimesKept = statements.filter((sql) => /^SELECT finished_at, environment, band FROM shipped_changes WHERE repository_id/.test(sql)).length;
      expect([start, leadTimesKept]).toEqual([start, pushes + (deployments > 0 ? 1 : 0)]);
      // Each run of deployments read in one statement, and those new to it inserted in one.
      const runs = page.filter((a, i) => a.kind === 'deployment' && page[i - 1]?.kind !== 'deployment').length;
      const read = statements.filter((sql) => /^SELECT .* FROM .?deployments.? AS .?deployment.? WHERE .*external_id/.test(sql)).length;
      const inserted = statements.filter((sql) => /^INSERT INTO .?deployments.? /.test(sql)).length;
      expect([start, read]).toEqual([start, runs]);
      expect(inserted).toBeLessThanOrEqual(runs);
      mostInOneRun = Math.max(mostInOneRun, longestRun(page, 'deployment'));
      mostDeployments = Math.max(mostDeployments, deployments);
    }
  } finally {
    t.runtime.sequelize.removeHook('afterQuery', 'deploymentPages');
  }
  // Pages that brought several deployments at once, some of them one after another, were among them.
  expect(mostDeployments).toBeGreaterThanOrEqual(3);
  expect(mostInOneRun).toBeGreaterThanOrEqual(2);
});

/** The most items of a kind one after another in a page. */
const longestRun = (page: Activity[], kind: Activity['kind']) => page.reduce(([longest, current], a) => (a.kind === kind ? [Math.max(longest, current + 1), current + 1] : [longest, 0]), [0, 0])[0];

test('the histories above are worth checking: some deployments shipped AI-assisted changes and some did not', () => {
  // Across the orders: with four environments each first deployment ships every earlier commit, so one history may have no deployment without one.
  expect([...shippedAiSeen].sort()).toEqual([0, 1]);
});

test.each([
  ['a lead time', durationBands],
  ['a size', sizeBands],
])('%s falls in the same band in the writer and in SQL (the backfill), at every band bound', async (_, bands) => {
  const values = [0, 1, 59_999, ...bands.starts.flatMap((start) => [start - 1, start, start + 1])].sort((a, b) => a - b);
  const sql = values.map((v) => `SELECT ${v} AS v, ${bands.sql(String(v))} AS band`).join(' UNION ALL ');
  const rows = await Deployment.sequelize!.query<{ v: number; band: number }>(sql, { type: QueryTypes.SELECT });
  expect(rows.map((r) => [Number(r.v), Number(r.band)])).toEqual(values.map((v) => [v, bands.of(v)]));
  // Ordered as the values: a percentile's band is found by walking bands in order.
  expect(values.map((v) => bands.of(v))).toEqual([...values.map((v) => bands.of(v))].sort((a, b) => a - b));
});

test("an author's days across two repositories: a day between two others, and a repository leaving, keep each previous day", async () => {
  const { lab, gitAppId } = await createLab(t, 'Author days');
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository = (name: string): RepositoryRef => ({ providerId: `author-days-${name}`, name, fullName: `lab/${name}`, defaultBranch: 'main', isPrivate: false, createdAt: at(0) });
  const push = (id: string, name: string, days: number[], email: string = DEMO.emails.ada) =>
    t.runtime.writers.gitActivity.receive({ gitApp, id, event: 'push' }, {
      kind: 'push',
      repository: repository(name),
      commits: days.map((d) => ({ sha: sha(`author days ${name} ${d} ${email}`), message: 'm', authorName: 'A', authorEmail: email, authorUsername: null, createdAt: at(d * 24 + 1) })),
    });
  await push('p1', 'api', [0, 4, 9]);
  await push('p2', 'web', [2, 4, 12], DEMO.emails.ada);
  await push('p3', 'web', [1], DEMO.emails.grace);
  // A late commit on a day between two stored ones, and one on a day already stored.
  await push('p4', 'api', [6, 2]);
  expect(await authorDays(lab.organizationId)).toEqual(await authorDaysOracle(lab.organizationId));
  expect((await authorDays(lab.organizationId)).filter(([user]) => user === DEMO.users.ada).map(([, d, p]) => [d, p])).toEqual([
    ['2026-03-02', null],
    ['2026-03-04', '2026-03-02'],
    ['2026-03-06', '2026-03-04'],
    ['2026-03-08', '2026-03-06'],
    ['2026-03-11', '2026-03-08'],
    ['2026-03-14', '2026-03-11'],
  ]);
  await t.runtime.writers.gitActivity.receive({ gitApp, id: 'web-deleted', event: 'repository' }, { kind: 'repository', action: 'deleted', repository: repository('web') });
  await eraseDeletedRepositories(t);
  expect(await authorDays(lab.organizationId)).toEqual(await authorDaysOracle(lab.organizationId));
  expect((await authorDays(lab.organizationId)).map(([user, d]) => [user, d])).toEqual(['2026-03-02', '2026-03-04', '2026-03-06', '2026-03-08', '2026-03-11'].map((d) => [DEMO.users.ada, d]));
});

test("pushes of one author to two repositories at once keep each day's previous day (the author's first days included)", async () => {
  const { lab, gitAppId } = await createLab(t, 'Author days race');
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const push = (id: string, name: string, day: number) =>
    t.runtime.writers.gitActivity.receive({ gitApp, id, event: 'push' }, {
      kind: 'push',
      repository: { providerId: `author-days-race-${name}`, name, fullName: `race/${name}`, defaultBranch: 'main', isPrivate: false, createdAt: at(0) },
      commits: [{ sha: sha(`author days race ${name} ${day}`), message: 'm', authorName: 'Grace', authorEmail: DEMO.emails.grace, authorUsername: null, createdAt: at(day * 24 + 1) }],
    });
  // Rounds of two pushes at once, the later day sometimes first; the first round stores grace's first days.
  for (const [a, b] of [[3, 1], [2, 5], [4, 0], [7, 6]]) {
    const outcomes = await Promise.all([push(`race-api-${a}`, 'api', a), push(`race-web-${b}`, 'web', b)]);
    expect(outcomes.map((o) => o.result)).toEqual(['applied', 'applied']);
  }
  expect(await authorDays(lab.organizationId)).toEqual(await authorDaysOracle(lab.organizationId));
  expect((await authorDays(lab.organizationId)).length).toBe(8);
});

test('concurrent deliveries to one repository keep the rollups exact (pushes and deployments racing)', async () => {
  const { gitAppId } = await createLab(t, 'Oracle race');
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository: RepositoryRef = { providerId: 'oracle-race', name: 'api', fullName: 'oracle/api', defaultBranch: 'main', isPrivate: false, createdAt: at(0) };
  const deliver = (id: string, activity: Activity) => t.runtime.writers.gitActivity.receive({ gitApp, id, event: activity.kind }, activity);
  await deliver('race-first', { kind: 'push', repository, commits: [{ sha: sha('race 0'), message: 'Start', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: at(0) }] });
  for (let round = 1; round <= 8; round++) {
    const commit = { sha: sha(`race ${round}`), message: round % 2 ? 'Cache\n\nCo-Authored-By: Claude <noreply@anthropic.com>' : 'Plain', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: at(round * 10 - 5) };
    const deployment = { externalId: `race-${round}`, environment: 'production', status: 'success' as const, sha: commit.sha, createdAt: at(round * 10 - 1), finishedAt: at(round * 10) };
    // The commit a deployment ships arrives at the same moment as the deployment.
    await Promise.all([deliver(`race-push-${round}`, { kind: 'push', repository, commits: [commit] }), deliver(`race-deploy-${round}`, { kind: 'deployment', repository, deployment })]);
  }
  const repositoryId = (await Deployment.findOne({ where: { git_app_id: gitAppId }, attributes: ['repository_id'] }))!.repository_id!;
  expect(await shippedChanges(repositoryId)).toEqual(await shippedChangesOracle(repositoryId));
  expect(await leadTimeDays(repositoryId, gitApp.organization_id)).toEqual(await leadTimeDaysOracle(repositoryId));
  expect(await commitDays(repositoryId, gitApp.organization_id)).toEqual(await commitDaysOracle(repositoryId, gitApp.organization_id));
  expect(await authorDays(gitApp.organization_id)).toEqual(await authorDaysOracle(gitApp.organization_id));
  const flags = (await Deployment.findAll({ where: { repository_id: repositoryId }, order: [['id', 'ASC']] })).map((d) => [d.id, Number(d.shipped_ai), Number(d.blamed), Number(d.rework)]);
  expect(flags).toEqual((await oracle(repositoryId)).map((o) => [o.id, Number(o.shipped_ai), Number(o.blamed), Number(o.rework)]));
});
