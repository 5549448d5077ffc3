import { QueryTypes } from 'sequelize';
import { GitApp, PullRequest, UserGitApp } from '../../db/models';
import { Random } from '../../db/demo/random';
import type { Activity, PullRequestInput, RepositoryRef } from '../../src/services/git/activity';
import { durationBands, sizeBands } from '../../db/rollups/bands';
import { AI_COLUMNS, memberActiveYearsSql, WORK_COLUMNS } from '../../db/rollups/memberActiveYears';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createLab, sha } from '../support/data/metricsHistory';
import { eraseDeletedRepositories } from '../support/peers/ingest';
import { ChangeRunner } from '../../src/persistence/changes/change';

/**
 * What the pull request and review writers keep for the figures (pullRequestSamples.ts, pullRequestReviewers.ts,
 * and with the commit writer each member's days at work: activity/memberActiveYears.ts),
 * against the same computed from the stored pull requests and their activity (the oracle below, as the figures read
 * them before): per merged pull request, its time to merge, pickup, first approval, review to merge, size and
 * whether it was iterated, AI-assisted or not, and the daily counts per band; who alone reviewed it; and which
 * activity is a peer review (by someone other than the author). The same
 * deliveries arrive in many orders: a review before its pull request, a merge before its opening, a commit pushed
 * after a review, an AI-assisted commit after the merge, an issue comment's partial view.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
// Near a month's end: merges fall in two months, so the monthly counts are tested across their boundary.
const START = Date.parse('2026-03-31T00:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR);
const PEOPLE = { ada: DEMO.users.ada, grace: DEMO.users.grace, margaret: DEMO.users.margaret } as const;
type Person = keyof typeof PEOPLE;
/** The provider's user ids, the stranger's too (who is no member): who is the author is decided by them. */
const PROVIDER_IDS: Record<Person | 'stranger', string> = { ada: '101', grace: '102', margaret: '103', stranger: '104' };

function deliveriesOf(random: Random, repository: RepositoryRef): Activity[] {
  const activity: Activity[] = [];
  const people: (Person | 'stranger')[] = ['ada', 'grace', 'margaret', 'stranger'];
  for (let number = 1; number <= 10; number++) {
    const author = people[Math.floor(random.float() * people.length)];
    const opened = 2 + number * 5 + random.float();
    const merged = random.chance(0.75) ? opened + 1 + random.float() * 30 : null;
    const head = sha(`head ${number}`);
    const view = (state: PullRequestInput['state'], updated: number): PullRequestInput => ({
      number,
      title: `PR ${number}`,
      state,
      authorUsername: author,
      authorProviderId: PROVIDER_IDS[author],
      body: number % 4 === 0 ? 'Generated with [Claude Code](https://claude.com/claude-code)' : 'A change',
      size: random.chance(0.8) ? { additions: Math.floor(random.float() * 400), deletions: Math.floor(random.float() * 50) } : null,
      commits: { head, merge: state === 'merged' ? sha(`merge ${number}`) : null },
      createdAt: at(opened),
      mergedAt: state === 'merged' ? at(merged!) : null,
      closedAt: state === 'merged' ? at(merged!) : null,
      updatedAt: at(updated),
    });
    activity.push({ kind: 'pull_request', repository, pullRequest: view('open', opened) });
    if (merged !== null) activity.push({ kind: 'pull_request', repository, pullRequest: view('merged', merged) });
    const reviews = Math.floor(random.float() * 6);
    for (let r = 0; r < reviews; r++) {
      // Mostly before the merge; some after it (they reviewed nothing that shipped).
      const when = opened + random.float() * 1.2 * ((merged ?? opened + 30) - opened);
      const kind = (['comment', 'approved', 'changes_requested'] as const)[Math.floor(random.float() * 3)];
      const by = people[Math.floor(random.float() * people.length)];
      // An issue comment sees the pull request only partly: it does not say merged.
      const current = kind !== 'comment' || random.chance(0.5);
      activity.push({ kind: 'review', repository, pullRequest: view('open', when), pullRequestCurrent: current && (merged === null || when < merged), review: { externalId: `review:${number}:${r}`, kind, actorUsername: by, actorProviderId: PROVIDER_IDS[by], createdAt: at(when) } });
    }
    // A commit pushed to it, after it opened or (rebased) before.
    if (random.chance(0.6)) {
      const pushed = opened + (random.chance(0.7) ? 1 : -1) * random.float() * 5;
      const commit = sha(`pushed ${number}`);
      activity.push({ kind: 'review', repository, pullRequest: view('open', pushed), pullRequestCurrent: false, review: { externalId: `commit:${commit}`, kind: 'commit', actorUsername: author, actorProviderId: PROVIDER_IDS[author], createdAt: at(pushed) } });
      // Its commit, AI-assisted, arriving by push: the pull request becomes AI-assisted after the fact.
      if (random.chance(0.5)) {
        activity.push({ kind: 'push', repository, commits: [{ sha: commit, message: 'Work\n\nCo-Authored-By: Claude <noreply@anthropic.com>', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: at(pushed) }] });
      }
    }
  }
  return activity;
}

const iso = (v: unknown) => (v instanceof Date ? v : new Date(`${String(v).slice(0, 10)}T${String(v).slice(11, 23)}Z`)).toISOString();
const query = <T extends object>(sql: string, replacements: Record<string, unknown>) => PullRequest.sequelize!.query<T>(sql, { type: QueryTypes.SELECT, replacements });

/** Each member's years at work as kept, and as counted from the stored rows (db/rollups/memberActiveYears.ts). */
async function activeYears(organizationId: string, counted = false) {
  const from = counted ? `(${memberActiveYearsSql(PullRequest.sequelize!.getDialect() === 'mysql')})` : 'member_active_years';
  const bits = [...WORK_COLUMNS, ...AI_COLUMNS];
  const rows = await query<Record<string, string | number>>(
    `SELECT m.user_id, m.year, ${bits.map((c) => `m.${c}`).join(', ')} FROM ${from} m WHERE m.organization_id = :organizationId ORDER BY m.user_id, m.year`,
    { organizationId },
  );
  return rows.map((r) => [r.user_id, Number(r.year), ...bits.map((c) => Number(r[c]))]);
}

/** Kept: each sample, and each pull request's sole reviewer and iteration. */
async function kept(repositoryId: string) {
  const samples = await query<{ pull_request_id: string; measure: number; merged_at: unknown; ai: unknown; band: number; value: unknown }>(
    'SELECT pull_request_id, measure, merged_at, ai, band, value FROM pull_request_samples WHERE repository_id = :repositoryId ORDER BY pull_request_id, measure',
    { repositoryId },
  );
  const reviewers = await query<{ id: string; iterated: unknown; sole_reviewer_id: string | null }>('SELECT id, iterated, sole_reviewer_id FROM pull_requests WHERE repository_id = :repositoryId ORDER BY id', { repositoryId });
  const activity = await query<{ id: string; pull_request_author_id: string | null; peer_review: unknown }>(
    'SELECT id, pull_request_author_id, peer_review FROM pull_request_activities WHERE repository_id = :repositoryId ORDER BY id',
    { repositoryId },
  );
  return {
    samples: samples.map((s) => [s.pull_request_id, Number(s.measure), iso(s.merged_at), Number(s.ai), Number(s.band), Number(s.value)]),
    reviewers: reviewers.map((r) => [r.id, Number(r.iterated), r.sole_reviewer_id]),
    peerReviews: activity.map((a) => [a.id, a.pull_request_author_id, Number(a.peer_review)]),
  };
}

/** The same from the stored pull requests and their activity, computed here. */
async function oracle(repositoryId: string) {
  const pulls = await query<{ id: string; author_id: string | null; author_provider_id: string | null; created_at: unknown; merged_at: unknown; ready_for_review_at: unknown; additions: number | null; deletions: number | null; ai_assisted: unknown; has_ai_commit: unknown }>(
    'SELECT id, author_id, author_provider_id, created_at, merged_at, ready_for_review_at, additions, deletions, ai_assisted, has_ai_commit FROM pull_requests WHERE repository_id = :repositoryId ORDER BY id',
    { repositoryId },
  );
  const activity = await query<{ id: string; pull_request_id: string; kind: string; actor_id: string | null; actor_provider_id: string | null; created_at: unknown }>(
    'SELECT id, pull_request_id, kind, actor_id, actor_provider_id, created_at FROM pull_request_activities WHERE repository_id = :repositoryId ORDER BY id',
    { repositoryId },
  );
  const samples: unknown[][] = [];
  const reviewers: unknown[][] = [];
  const pullOf = new Map(pulls.map((p) => [p.id, p]));
  // Someone other than the author: neither the same provider user nor the same member.
  const byOther = (a: (typeof activity)[number], p: (typeof pulls)[number]) =>
    a.kind !== 'commit' && !((a.actor_provider_id !== null && a.actor_provider_id === p.author_provider_id) || (a.actor_id !== null && a.actor_id === p.author_id));
  const peerReviews = activity.map((a) => [a.id, pullOf.get(a.pull_request_id)!.author_id, Number(byOther(a, pullOf.get(a.pull_request_id)!))]);
  for (const p of pulls) {
    const own = activity.filter((a) => a.pull_request_id === p.id);
    const byOthers = own.filter((a) => byOther(a, p));
    const created = Date.parse(iso(p.created_at));
    const iterated = own.some((a) => a.kind === 'commit' && Date.parse(iso(a.created_at)) > created);
    const known = [...new Set(byOthers.map((a) => a.actor_id).filter((id): id is string => id !== null))];
    reviewers.push([p.id, Number(iterated), known.length === 1 ? known[0] : null]);
    if (p.merged_at === null) continue;
    const merged = Date.parse(iso(p.merged_at));
    const first = (list: typeof own) => {
      const times = list.map((a) => Date.parse(iso(a.created_at)));
      const min = times.length ? Math.min(...times) : null;
      return min !== null && min <= merged ? min : null;
    };
    const reviewed = first(byOthers);
    const approved = first(byOthers.filter((a) => a.kind === 'approved'));
    const ai = Number(Number(p.ai_assisted) === 1 || Number(p.has_ai_commit) === 1);
    const sample = (measure: number, value: number | null, bands = durationBands) => value !== null && samples.push([p.id, measure, iso(p.merged_at), ai, bands.of(value), value]);
    sample(0, merged - created);
    sample(1, reviewed === null ? null : reviewed - created);
    sample(2, approved === null ? null : approved - created);
    sample(3, reviewed === null ? null : merged - reviewed);
    sample(4, p.additions === null || p.deletions === null ? null : Number(p.additions) + Number(p.deletions), sizeBands);
    sample(5, iterated ? 0 : null, sizeBands);
    // From ready for review (the last time before the merge, else the opening); a review before it counts at it.
    const readyAt = p.ready_for_review_at === null ? null : Date.parse(iso(p.ready_for_review_at));
    const ready = readyAt !== null && readyAt <= merged ? readyAt : created;
    sample(6, merged - ready);
    sample(7, reviewed === null ? null : Math.max(reviewed, ready) - ready);
    sample(8, approved === null ? null : Math.max(approved, ready) - ready);
  }
  return { samples, reviewers, peerReviews };
}

/** The daily counts kept, of the repository, then of the organization (zeros left by moves dropped). */
async function days(repositoryId: string, organizationId: string) {
  const rows = await query<{ scope_id: string; day: unknown; measure: number; ai: unknown; band: number; pull_requests: number }>(
    'SELECT scope_id, day, measure, ai, band, pull_requests FROM pull_request_days WHERE scope_id IN (:ids) AND pull_requests <> 0 ORDER BY scope_id <> :repositoryId, day, measure, ai, band',
    { ids: [repositoryId, organizationId], repositoryId },
  );
  return rows.map((r) => [r.scope_id === repositoryId ? 'repository' : 'organization', String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10), Number(r.measure), Number(r.ai), Number(r.band), Number(r.pull_requests)]);
}

/** The monthly counts kept, in the same order. */
async function months(repositoryId: string, organizationId: string) {
  const rows = await query<{ scope_id: string; month: string; measure: number; ai: unknown; band: number; pull_requests: number }>(
    'SELECT scope_id, month, measure, ai, band, pull_requests FROM pull_request_months WHERE scope_id IN (:ids) AND pull_requests <> 0 ORDER BY scope_id <> :repositoryId, month, measure, ai, band',
    { ids: [repositoryId, organizationId], repositoryId },
  );
  return rows.map((r) => [r.scope_id === repositoryId ? 'repository' : 'organization', r.month, Number(r.measure), Number(r.ai), Number(r.band), Number(r.pull_requests)]);
}

/** The daily counts summed per month. */
function monthsOf(dailyRows: (string | number)[][]) {
  const sums = new Map<string, (string | number)[]>();
  for (const [scope, day, measure, ai, band, n] of dailyRows) {
    const key = [scope, String(day).slice(0, 7), measure, ai, band].join('|');
    const row = sums.get(key) ?? [scope, String(day).slice(0, 7), measure, ai, band, 0];
    row[5] = Number(row[5]) + Number(n);
    sums.set(key, row);
  }
  const order = (r: (string | number)[]) => [r[0] === 'repository' ? 0 : 1, r[1], r[2], r[3], r[4]];
  return [...sums.values()].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  });
}

/** The same counted from the samples (the lab's organization has this one repository). */
function daysOracle(samples: unknown[][]) {
  const counts = new Map<string, number>();
  for (const [, measure, mergedAt, ai, band] of samples) {
    const key = [String(mergedAt).slice(0, 10), measure, ai, band].join('|');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const sorted = [...counts].map(([key, n]) => {
    const [day, measure, ai, band] = key.split('|');
    return [day, Number(measure), Number(ai), Number(band), n] as const;
  });
  sorted.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2] || a[3] - b[3]));
  return [...sorted.map((r) => ['repository', ...r]), ...sorted.map((r) => ['organization', ...r])];
}

/** A lab organization whose git app knows the people by their logins, one repository of it, and its deliveries drawn and shuffled by `draws` and `seed`. */
async function labDeliveries(name: string, draws: string, seed: number) {
  const { gitAppId } = await createLab(t, `${name} ${seed}`);
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  for (const [person, id] of Object.entries(PEOPLE)) await UserGitApp.create({ user_id: id, git_app_id: gitApp.id, username: person, created_at: new Date() });
  const slug = name.toLowerCase();
  const repository: RepositoryRef = { providerId: `${slug}-${seed}`, name: 'api', fullName: `${slug}/api`, defaultBranch: 'main', isPrivate: false, createdAt: at(0) };
  const random = new Random(`pull request ${draws} ${seed}`);
  return { gitApp, repository, deliveries: random.shuffle(deliveriesOf(random, repository)) };
}

test.each([1, 2, 3, 4, 5, 6])('what the writers keep for merged pull requests equals the read-time computation, deliveries in order %i', async (seed) => {
  const { gitApp, repository, deliveries } = await labDeliveries('Reviews', 'samples', seed);
  let repositoryId = '';
  let last = { samples: [] as unknown[][], reviewers: [] as unknown[][], peerReviews: [] as unknown[][] };
  // Exact after every write, not only at the end.
  for (const [i, activity] of deliveries.entries()) {
    const outcome = await t.runtime.writers.gitActivity.receive({ gitApp, id: `reviews-${seed}-${i}`, event: activity.kind }, activity);
    expect(['applied', 'ignored']).toContain(outcome.result);
    repositoryId = outcome.repository_id ?? repositoryId;
    if (!repositoryId) continue;
    last = await oracle(repositoryId);
    expect([i, activity.kind, await kept(repositoryId)]).toEqual([i, activity.kind, last]);
    expect([i, activity.kind, await days(repositoryId, gitApp.organization_id)]).toEqual([i, activity.kind, daysOracle(last.samples)]);
    expect([i, activity.kind, await months(repositoryId, gitApp.organization_id)]).toEqual([i, activity.kind, monthsOf(daysOracle(last.samples))]);
    expect([i, activity.kind, await activeYears(gitApp.organization_id)]).toEqual([i, activity.kind, await activeYears(gitApp.organization_id, true)]);
  }
  // Every member who opened, reviewed or committed has their days; the stranger (no member) none.
  expect(new Set((await activeYears(gitApp.organization_id)).map(([user]) => user))).toEqual(new Set(Object.values(PEOPLE)));
  // The history is worth checking: merged pull requests, reviewed or not, AI-assisted or not, iterated or not.
  const measures = new Set(last.samples.map((s) => s[1]));
  for (const measure of [0, 1, 3, 4, 5]) expect(measures).toContain(measure);
  expect(new Set(last.samples.map((s) => s[3])).size).toBe(2);
  expect(last.reviewers.some((r) => r[2] !== null)).toBe(true);
  expect(new Set(last.peerReviews.map((r) => r[2])).size).toBe(2);

  // Windows read by whole months and edge days count what the samples hold: across the month boundary, a whole
  // month alone, a month and an edge day, one day; as totals and as a monthly series.
  const token = await t.token({ user: DEMO.emails.ada });
  const mergedIn = (from: string, to: string) => last.samples.filter((s) => s[1] === 0 && String(s[2]).slice(0, 10) >= from && String(s[2]).slice(0, 10) <= to).length;
  for (const [from, to] of [['2026-03-01', '2026-04-30'], ['2026-04-01', '2026-04-30'], ['2026-03-31', '2026-04-30'], ['2026-03-15', '2026-04-01'], ['2026-04-02', '2026-04-02']]) {
    for (const metric of ['pull-requests', 'collaboration']) {
      const res = await t.get(`/v1/metrics/${metric}?organization_id=${gitApp.organization_id}&from=${from}&to=${to}&interval=month`, token);
      expect([metric, from, to, res.body.data.merged]).toEqual([metric, from, to, mergedIn(from, to)]);
      expect(res.body.data.series.reduce((sum: number, b: { merged: number }) => sum + b.merged, 0)).toBe(mergedIn(from, to));
    }
  }

  // A deleted repository, erased after its grace, leaves nothing behind, in its organization's counts either.
  await t.runtime.writers.gitActivity.receive({ gitApp, id: `reviews-${seed}-deleted`, event: 'repository' }, { kind: 'repository', action: 'deleted', repository });
  await eraseDeletedRepositories(t);
  expect(await query('SELECT pull_request_id FROM pull_request_samples WHERE repository_id = :repositoryId', { repositoryId })).toEqual([]);
  expect(await days(repositoryId, gitApp.organization_id)).toEqual([]);
  expect(await months(repositoryId, gitApp.organization_id)).toEqual([]);
  expect(await activeYears(gitApp.organization_id)).toEqual([]);
});

test.each([1, 2, 3])('a page of history keeps the same, each pull request recomputed once per page however much of it the page brings, pages of order %i', async (seed) => {
  const { gitApp, deliveries } = await labDeliveries('Pages', 'pages', seed);
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const statements: string[] = [];
  t.runtime.sequelize.addHook('afterQuery', 'pageStatements', (_options: unknown, query: object) => void statements.push(String(Reflect.get(query, 'sql') ?? '')));
  try {
    let repositoryId = '';
    let mostReviews = 0;
    for (let start = 0; start < deliveries.length; start += 8) {
      const page = deliveries.slice(start, start + 8);
      statements.length = 0;
      const outcomes = await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, gitApp, page));
      repositoryId = outcomes.find((o) => o.repository_id)?.repository_id ?? repositoryId;
      const last = await oracle(repositoryId);
      expect([start, await kept(repositoryId)]).toEqual([start, last]);
      expect([start, await days(repositoryId, gitApp.organization_id)]).toEqual([start, daysOracle(last.samples)]);
      expect([start, await activeYears(gitApp.organization_id)]).toEqual([start, await activeYears(gitApp.organization_id, true)]);
      // Once for the page, however many of its reviews: the reviewers of the pull requests whose activity it added,
      // then the measures of all it touched.
      const recomputed = (pattern: RegExp) => statements.filter((sql) => pattern.test(sql)).length;
      const reviews = page.filter((a) => a.kind === 'review').length;
      const once = reviews > 0 ? [1, 1] : [expect.any(Number), expect.any(Number)];
      expect([start, recomputed(/^UPDATE pull_requests SET\s+iterated = /), recomputed(/FROM pull_request_samples WHERE pull_request_id IN/)]).toEqual([start, ...once]);
      expect(recomputed(/^UPDATE pull_requests SET\s+iterated = /)).toBeLessThanOrEqual(1);
      expect(recomputed(/FROM pull_request_samples WHERE pull_request_id IN/)).toBeLessThanOrEqual(1);
      mostReviews = Math.max(mostReviews, reviews);
    }
    // Pages that brought several reviews at once were among them.
    expect(mostReviews).toBeGreaterThanOrEqual(2);
  } finally {
    t.runtime.sequelize.removeHook('afterQuery', 'pageStatements');
  }
});

test('a page of pull requests of one repository is stored together: read in one statement and the new ones inserted in one, each announced in order, the rows as one at a time would store them', async () => {
  const view = (number: number, author: Person | 'stranger', state: PullRequestInput['state'], updated: number, title = `PR ${number}`): PullRequestInput => ({
    number,
    title,
    state,
    authorUsername: author,
    authorProviderId: PROVIDER_IDS[author],
    body: null,
    size: { additions: number * 10, deletions: number },
    commits: { head: sha(`set head ${number}`), merge: state === 'merged' ? sha(`set merge ${number}`) : null },
    createdAt: at(number),
    mergedAt: state === 'merged' ? at(updated) : null,
    closedAt: state === 'open' ? null : at(updated),
    updatedAt: at(updated),
  });
  // Stored before the page; the page closes it. Then two new ones, the first merged later in the same page, and
  // one by someone who is no member.
  const before = view(3, 'grace', 'open', 3);
  const page = (repository: RepositoryRef): Activity[] => [
    { kind: 'pull_request', repository, pullRequest: view(1, 'ada', 'open', 1) },
    { kind: 'pull_request', repository, pullRequest: view(2, 'stranger', 'open', 2) },
    { kind: 'pull_request', repository, pullRequest: view(1, 'ada', 'merged', 5) },
    { kind: 'pull_request', repository, pullRequest: view(3, 'grace', 'closed', 6, 'PR 3, abandoned') },
    { kind: 'pull_request', repository, pullRequest: view(2, 'stranger', 'open', 1) },
  ];
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const stored = async (gitApp: GitApp) =>
    (await PullRequest.findAll({ where: { git_app_id: gitApp.id }, order: [['number', 'ASC']] })).map((p) => [p.number, p.title, p.state, p.author_id, p.author_login, p.created_at, p.merged_at, p.closed_at, p.additions, p.head_sha, p.merge_commit_sha]);
  const announced = async (gitApp: GitApp) =>
    (await query<{ type: string; data: string }>("SELECT type, data FROM outbox_events WHERE organization_id = :id AND type LIKE 'pull_request.%' ORDER BY seq", { id: gitApp.organization_id })).map((e) => [e.type, JSON.parse(e.data).number]);

  const one = await labDeliveries('Singly', 'singly', 1);
  await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, one.gitApp, [{ kind: 'pull_request', repository: one.repository, pullRequest: before }]));
  const singly = [];
  for (const activity of page(one.repository)) singly.push(...(await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, one.gitApp, [activity]))));

  const set = await labDeliveries('Set', 'set', 1);
  await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, set.gitApp, [{ kind: 'pull_request', repository: set.repository, pullRequest: before }]));
  const statements: string[] = [];
  t.runtime.sequelize.addHook('afterQuery', 'setStatements', (_options: unknown, q: object) => void statements.push(String(Reflect.get(q, 'sql') ?? '')));
  let together: Awaited<ReturnType<typeof t.runtime.writers.gitActivity.importInto>>;
  try {
    together = await changes.run((change) => t.runtime.writers.gitActivity.importInto(change, set.gitApp, page(set.repository)));
  } finally {
    t.runtime.sequelize.removeHook('afterQuery', 'setStatements');
  }
  expect(together.map((o) => o.pull_request)).toEqual(['created', 'created', 'updated', 'updated', 'stale']);
  expect(together.map((o) => o.pull_request)).toEqual(singly.map((o) => o.pull_request));
  expect(statements.filter((sql) => /^SELECT .* FROM .?pull_requests.? AS/.test(sql) && /number.? (=|IN)/.test(sql))).toHaveLength(1);
  expect(statements.filter((sql) => /^INSERT INTO .?pull_requests.? /.test(sql))).toHaveLength(1);

  const setRows = await stored(set.gitApp);
  expect(setRows.map((r) => r.slice(0, 3))).toEqual([[1, 'PR 1', 'merged'], [2, 'PR 2', 'open'], [3, 'PR 3, abandoned', 'closed']]);
  expect(setRows).toEqual(await stored(one.gitApp));
  expect(await announced(set.gitApp)).toEqual([['pull_request.opened', 3], ['pull_request.opened', 1], ['pull_request.opened', 2], ['pull_request.merged', 1], ['pull_request.closed', 3]]);
  expect(await announced(set.gitApp)).toEqual(await announced(one.gitApp));
  // The stranger's account is noted once for each of its pull requests, as one at a time notes it.
  const unmatched = (gitApp: GitApp) => query<{ account: string; activity: number }>('SELECT account, activity FROM unmatched_accounts WHERE connection_id = :id', { id: gitApp.id });
  expect((await unmatched(set.gitApp)).map((u) => [u.account, Number(u.activity)])).toEqual([['stranger', 1]]);
  expect(await kept(together[0].repository_id!)).toEqual(await oracle(together[0].repository_id!));
  expect(await activeYears(set.gitApp.organization_id)).toEqual(await activeYears(set.gitApp.organization_id, true));
});

test('a review stored before its pull request named its author, in the same change, is judged again with it: its author’s own approval is no first review', async () => {
  const { gitApp, repository } = await labDeliveries('Judged', 'judged', 1);
  const view = (author: Person | null): PullRequestInput => ({
    number: 7,
    title: 'PR 7',
    state: 'open',
    authorUsername: author,
    authorProviderId: author && PROVIDER_IDS[author],
    body: null,
    size: null,
    commits: { head: null, merge: null },
    createdAt: at(1),
    mergedAt: null,
    closedAt: null,
    updatedAt: at(3),
  });
  // GitLab's approval view names no author; the merge request's listing does, later in the same page.
  const page: Activity[] = [
    { kind: 'review', repository, pullRequest: view(null), pullRequestCurrent: false, review: { externalId: 'approval:grace', kind: 'approved', actorUsername: 'grace', actorProviderId: PROVIDER_IDS.grace, createdAt: at(2) } },
    { kind: 'review', repository, pullRequest: view(null), pullRequestCurrent: false, review: { externalId: 'note:1', kind: 'comment', actorUsername: 'ada', actorProviderId: PROVIDER_IDS.ada, createdAt: at(2.5) } },
    { kind: 'pull_request', repository, pullRequest: view('grace') },
  ];
  await ChangeRunner.for(t.runtime.sequelize).run((change) => t.runtime.writers.gitActivity.importInto(change, gitApp, page));
  const [stored] = await query<{ first_review_at: unknown; first_approval_at: unknown }>('SELECT first_review_at, first_approval_at FROM pull_requests WHERE git_app_id = :id AND number = 7', { id: gitApp.id });
  expect([iso(stored.first_review_at), stored.first_approval_at]).toEqual([at(2.5).toISOString(), null]);
});

test('a pull request whose opening moved within one change leaves its author the day it moved to, not the one before', async () => {
  const { gitApp, repository } = await labDeliveries('Moved', 'moved', 1);
  const view = (opened: number, updated: number): PullRequestInput => ({
    number: 8,
    title: 'PR 8',
    state: 'open',
    authorUsername: 'margaret',
    authorProviderId: PROVIDER_IDS.margaret,
    body: null,
    size: null,
    commits: { head: null, merge: null },
    createdAt: at(opened),
    mergedAt: null,
    closedAt: null,
    updatedAt: at(updated),
  });
  const page: Activity[] = [
    { kind: 'pull_request', repository, pullRequest: view(1, 2) },
    { kind: 'pull_request', repository, pullRequest: view(30, 40) },
  ];
  await ChangeRunner.for(t.runtime.sequelize).run((change) => t.runtime.writers.gitActivity.importInto(change, gitApp, page));
  const kept = await activeYears(gitApp.organization_id);
  expect(kept).toEqual(await activeYears(gitApp.organization_id, true));
  expect(kept.map(([user]) => user)).toEqual([PEOPLE.margaret]);
});

test('a run of reviews of one repository is stored together: the same review twice in it is stored once, its pull requests, accounts and activities each read in one statement, and the activities inserted in one', async () => {
  const { gitApp, repository } = await labDeliveries('Run', 'run', 1);
  const view = (number: number): PullRequestInput => ({
    number,
    title: `PR ${number}`,
    state: 'open',
    authorUsername: 'margaret',
    authorProviderId: PROVIDER_IDS.margaret,
    body: null,
    size: null,
    commits: { head: null, merge: null },
    createdAt: at(1),
    mergedAt: null,
    closedAt: null,
    updatedAt: at(2),
  });
  const note = (number: number, id: string, actor: Person, hours: number): Activity => ({
    kind: 'review',
    repository,
    pullRequest: view(number),
    pullRequestCurrent: false,
    review: { externalId: id, kind: 'comment', actorUsername: actor, actorProviderId: PROVIDER_IDS[actor], createdAt: at(2 + hours / 24) },
  });
  const page = [note(1, 'note:1', 'grace', 1), note(2, 'note:2', 'ada', 2), note(1, 'note:3', 'ada', 3), note(1, 'note:1', 'grace', 1), note(3, 'note:4', 'grace', 4)];
  const statements: string[] = [];
  t.runtime.sequelize.addHook('afterQuery', 'runStatements', (_options: unknown, q: object) => void statements.push(String(Reflect.get(q, 'sql') ?? '')));
  let outcomes: Awaited<ReturnType<typeof t.runtime.writers.gitActivity.importInto>>;
  try {
    outcomes = await ChangeRunner.for(t.runtime.sequelize).run((change) => t.runtime.writers.gitActivity.importInto(change, gitApp, page));
  } finally {
    t.runtime.sequelize.removeHook('afterQuery', 'runStatements');
  }
  expect(outcomes.map((o) => o.review)).toEqual(['created', 'created', 'created', 'unchanged', 'created']);
  const stored = await query<{ number: number; external_id: string }>(
    'SELECT p.number, a.external_id FROM pull_request_activities a JOIN pull_requests p ON p.id = a.pull_request_id WHERE a.git_app_id = :id ORDER BY a.external_id',
    { id: gitApp.id },
  );
  expect(stored.map((s) => [Number(s.number), s.external_id])).toEqual([[1, 'note:1'], [2, 'note:2'], [1, 'note:3'], [3, 'note:4']]);
  expect(statements.filter((sql) => /^INSERT INTO .?pull_request_activities/.test(sql))).toHaveLength(1);
  expect(statements.filter((sql) => /^SELECT .* FROM .?pull_request_activities/.test(sql))).toHaveLength(1);
  // The run's pull requests read at once, not once for each review, nor again to store those not stored yet.
  expect(statements.filter((sql) => /^SELECT .* FROM .?pull_requests.? AS/.test(sql) && /number.? (=|IN)/.test(sql))).toHaveLength(1);
  // The accounts the page names read at once too.
  expect(statements.filter((sql) => /FROM .?user_git_apps/.test(sql))).toHaveLength(1);
  expect(await activeYears(gitApp.organization_id)).toEqual(await activeYears(gitApp.organization_id, true));
});
