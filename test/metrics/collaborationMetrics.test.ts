import { startTestApp, TestApp, DEMO } from '../support/harness';
import { deliverReviewHistory, ReviewProvider, Step } from '../support/data/reviewHistory';
import { REVIEW_LOAD_REVIEWERS, REVIEW_NETWORK_EDGES, reviewLoad, sharingIndex } from '../../src/services/metrics/collaboration';
import { PullRequest, PullRequestActivity, Repository } from '../../db/models';
import { newId } from '../../src/persistence/changes/ids';
import { createLab } from '../support/data/metricsHistory';

/**
 * `GET /v1/metrics/collaboration` (docs/metrics.md#ai-review-and-cost-figures) on the week of review in test/support/data/reviewHistory.ts, delivered
 * once as GitHub sends it, once as GitLab does and once as Bitbucket Cloud does: each must give the figures worked out here by hand.
 *
 * Merged March 2–8 (hours: pickup = opened → first review by another, approval = opened → first approval by
 * another, review → merge):
 *   #1 ada       pickup 2  approval 6  review→merge 6   iterated
 *   #2 ada       unreviewed (only her own comment)
 *   #3 ada       pickup 4  approval 4  review→merge 1   (her self-approval does not count)
 *   #4 grace     pickup 1  approval 5  review→merge 5   iterated (changes requested, then a commit)
 *   #5 margaret  pickup 8  approval 8  review→merge 2
 *   #6 ada       unreviewed (self-approved only)
 *   #7 margaret  pickup 1  approval 2  review→merge 2
 *   #8 margaret  pickup 1  approval 1  review→merge 1
 * Review actions by others: Grace 8 (#1 ×2, #3, #5, #7 ×2, #8, #9), Margaret 2 (#4 ×2).
 */
let t: TestApp;
let token: string;
const labs: Record<ReviewProvider, string> = { github: '', gitlab: '', bitbucket: '' };
const contractorLabs: Record<ReviewProvider, string> = { github: '', gitlab: '', bitbucket: '' };

/**
 * A week whose most frequent author, Dana, is no member: nothing matches her to anyone, only the provider's user id
 * on her pull requests and on what she does says it is her. Her own comments, review comments and approvals are
 * no review (GitLab lets an author approve their own merge request where the project allows it).
 *   #1 dana  comments 11:00, Grace 13:00         pickup 3 (not 1)            review→merge 2
 *   #2 dana  her review comment, her approval    unreviewed (not picked up in 1 h)
 *   #3 dana  comments 10:00, Ada approves 11:00  pickup 2  approval 2        review→merge 1
 *   #4 ada   her own comment 10:00, Dana's 12:00, Grace approves 13:00: pickup 3  approval 4  review→merge 2
 * Peer review actions: Grace 2, Ada 1 and Dana's on Ada's pull request (no member: in the total only).
 */
const CONTRACTOR_HISTORY: Step[] = [
  { do: 'open', pr: 1, by: 'dana', at: '2026-03-02T10:00:00Z' },
  { do: 'comment', pr: 1, by: 'dana', at: '2026-03-02T11:00:00Z' },
  { do: 'comment', pr: 1, by: 'grace', at: '2026-03-02T13:00:00Z' },
  { do: 'merge', pr: 1, by: 'dana', at: '2026-03-02T15:00:00Z' },
  { do: 'open', pr: 2, by: 'dana', at: '2026-03-03T10:00:00Z' },
  { do: 'review_comment', pr: 2, by: 'dana', at: '2026-03-03T11:00:00Z' },
  { do: 'approved', pr: 2, by: 'dana', at: '2026-03-03T12:00:00Z' },
  { do: 'merge', pr: 2, by: 'dana', at: '2026-03-03T13:00:00Z' },
  { do: 'open', pr: 3, by: 'dana', at: '2026-03-04T09:00:00Z' },
  { do: 'comment', pr: 3, by: 'dana', at: '2026-03-04T10:00:00Z' },
  { do: 'approved', pr: 3, by: 'ada', at: '2026-03-04T11:00:00Z' },
  { do: 'merge', pr: 3, by: 'dana', at: '2026-03-04T12:00:00Z' },
  { do: 'open', pr: 4, by: 'ada', at: '2026-03-05T09:00:00Z' },
  { do: 'comment', pr: 4, by: 'ada', at: '2026-03-05T10:00:00Z' },
  { do: 'review_comment', pr: 4, by: 'dana', at: '2026-03-05T12:00:00Z' },
  { do: 'approved', pr: 4, by: 'grace', at: '2026-03-05T13:00:00Z' },
  { do: 'merge', pr: 4, by: 'ada', at: '2026-03-05T14:00:00Z' },
];

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
  labs.github = (await deliverReviewHistory(t, 'github')).organizationId;
  labs.gitlab = (await deliverReviewHistory(t, 'gitlab')).organizationId;
  contractorLabs.github = (await deliverReviewHistory(t, 'github', CONTRACTOR_HISTORY)).organizationId;
  contractorLabs.gitlab = (await deliverReviewHistory(t, 'gitlab', CONTRACTOR_HISTORY)).organizationId;
  labs.bitbucket = (await deliverReviewHistory(t, 'bitbucket')).organizationId;
  contractorLabs.bitbucket = (await deliverReviewHistory(t, 'bitbucket', CONTRACTOR_HISTORY)).organizationId;
  token = await t.token();
});
afterAll(async () => t.close());

const WEEK = { from: '2026-03-02', to: '2026-03-08' };
const collaboration = (query: Record<string, string>, as = token) => t.get(`/v1/metrics/collaboration?${new URLSearchParams(query)}`, as);

describe.each(['github', 'gitlab', 'bitbucket'] as const)('the week of review, delivered by %s', (provider) => {
  test('every figure by hand', async () => {
    const res = await collaboration({ organization_id: labs[provider], ...WEEK });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      scope: { organization_id: labs[provider], team_id: null, repositories: 'all' },
      from: '2026-03-02',
      to: '2026-03-08',
      interval: null,
      merged: 8,
      reviews: 10,
      // [1, 1, 1, 2, 4, 8]: ranks ⌈0.5·6⌉ = 3 and ⌈0.75·6⌉ = 5.
      pickup_hours: { median: 1, p75: 4, n: 6 },
      // [1, 2, 4, 5, 6, 8]
      time_to_first_approval_hours: { median: 4, p75: 6, n: 6 },
      // [1, 1, 2, 2, 5, 6]
      review_to_merge_hours: { median: 2, p75: 5, n: 6 },
      iterated_prs: { count: 2, merged: 8, share: 0.25 },
      unreviewed_merged: { count: 2, share: 0.25 },
      // Gini of [2, 8] = (−1·2 + 1·8) ÷ (2·10) = 0.3; 100 × 0.7 × 2 reviewers ÷ 3 members = 46.7.
      sharing_index: 46.7,
      reviewers: 2,
      available_reviewers: 3,
      review_load: [
        { user_id: DEMO.users.grace, reviews: 8, share: 0.8 },
        { user_id: DEMO.users.margaret, reviews: 2, share: 0.2 },
      ],
      review_network: [
        { reviewer_id: DEMO.users.grace, author_id: DEMO.users.margaret, reviews: 5 },
        { reviewer_id: DEMO.users.grace, author_id: DEMO.users.ada, reviews: 3 },
        { reviewer_id: DEMO.users.margaret, author_id: DEMO.users.grace, reviews: 2 },
      ],
      // Ada's #2 and #6 went unreviewed; Grace merged one.
      knowledge_silos: [{ author_id: DEMO.users.margaret, reviewer_id: DEMO.users.grace, merged_prs: 3 }],
    });
  });

  test('a daily series, adding up to the totals', async () => {
    const data = (await collaboration({ organization_id: labs[provider], ...WEEK, interval: 'day' })).body.data;
    const stage = (h: number | null) => ({ median: h, p75: h, n: h === null ? 0 : 1 });
    const day = (start: string, merged: number, reviews: number, [pickup, approval, toMerge]: (number | null)[], iterated = 0, unreviewed = 0) => ({
      start,
      merged,
      reviews,
      pickup_hours: stage(pickup),
      time_to_first_approval_hours: stage(approval),
      review_to_merge_hours: stage(toMerge),
      iterated_prs: iterated,
      unreviewed_merged: unreviewed,
    });
    expect(data.series).toEqual([
      day('2026-03-02', 1, 2, [2, 6, 6], 1),
      day('2026-03-03', 1, 0, [null, null, null], 0, 1),
      day('2026-03-04', 1, 1, [4, 4, 1]),
      day('2026-03-05', 1, 2, [1, 5, 5], 1),
      day('2026-03-06', 1, 1, [8, 8, 2]),
      // #6 unreviewed and #7.
      { ...day('2026-03-07', 2, 2, [1, 2, 2], 0, 1) },
      // #8, and Grace's comment on #9, still open.
      day('2026-03-08', 1, 2, [1, 1, 1]),
    ]);
  });
});

describe.each(['github', 'gitlab', 'bitbucket'] as const)('an author who is no member, delivered by %s', (provider) => {
  test('her own comments, review comments and approvals are no review: pickup from the other person, her self-reviewed pull request unreviewed, no edge of hers', async () => {
    const res = await collaboration({ organization_id: contractorLabs[provider], ...WEEK });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      merged: 4,
      reviews: 4,
      // [2, 3, 3]
      pickup_hours: { median: 3, p75: 3, n: 3 },
      // [2, 4]
      time_to_first_approval_hours: { median: 2, p75: 4, n: 2 },
      // [1, 2, 2]
      review_to_merge_hours: { median: 2, p75: 2, n: 3 },
      iterated_prs: { count: 0, merged: 4, share: 0 },
      unreviewed_merged: { count: 1, share: 0.25 },
      // Gini of [1, 2] = (−1·1 + 1·2) ÷ (2·3) = ⅙; 100 × ⅚ × 2 reviewers ÷ 3 members = 55.6.
      sharing_index: 55.6,
      reviewers: 2,
      available_reviewers: 3,
      review_load: [
        { user_id: DEMO.users.grace, reviews: 2, share: 0.6667 },
        { user_id: DEMO.users.ada, reviews: 1, share: 0.3333 },
      ],
      // Ada's own comment on #4 makes no edge; Dana, no member, is no end of one.
      review_network: [{ reviewer_id: DEMO.users.grace, author_id: DEMO.users.ada, reviews: 1 }],
      knowledge_silos: [],
    });
  });
});

test('a window with nothing merged and no reviews: counts 0, medians and shares null', async () => {
  const data = (await collaboration({ organization_id: labs.github, from: '2026-04-01', to: '2026-04-30' })).body.data;
  expect(data).toMatchObject({
    merged: 0,
    reviews: 0,
    pickup_hours: { median: null, p75: null, n: 0 },
    iterated_prs: { count: 0, merged: 0, share: null },
    unreviewed_merged: { count: 0, share: null },
    sharing_index: null,
    review_load: [],
    review_network: [],
    knowledge_silos: [],
  });
});

test('one reviewer only: the Gini coefficient is 0, the index is their share of the people who could review', () => {
  expect(sharingIndex(reviewLoad([{ user_id: 'usr_a', given: 7 }]).spread, 4)).toBe(25);
  expect(sharingIndex(reviewLoad([]).spread, 4)).toBeNull();
  // More reviewers than members (outside reviewers): coverage is at most 1.
  expect(sharingIndex({ reviewers: 2, reviews: 2, gini_sum: 0 }, 1)).toBe(100);
});

test('review load by hand: counts 1 and 3 (Σ (2i − n − 1)·cᵢ = −1 + 3 = 2, Gini 2 ÷ (2 × 4) = ¼), and an unknown reviewer in the total only', () => {
  const load = reviewLoad([
    { user_id: 'usr_b', given: 3 },
    { user_id: null, given: 5 },
    { user_id: 'usr_a', given: 1 },
  ]);
  expect(load).toEqual({ spread: { reviewers: 2, reviews: 4, gini_sum: 2 }, busiest: [{ user_id: 'usr_b', given: 3 }, { user_id: 'usr_a', given: 1 }], reviews: 9 });
  // (1 − ¼) × min(1, 2 ÷ 3) × 100
  expect(sharingIndex(load.spread, 3)).toBe(50);
});
test('more reviewers than the lists hold: the busiest 200 are listed, every one is counted, shares and the index over all', async () => {
  const { lab, gitAppId } = await createLab(t, 'Many reviewers');
  const placement = { git_app_id: gitAppId, organization_id: lab.organizationId };
  const repository = await Repository.create({ id: newId('repo'), ...placement, name: 'api', full_name: 'lab/api', default_branch: 'main', is_private: false, created_at: new Date('2026-03-01T00:00:00Z') });
  const pr = await PullRequest.create({ id: newId('pr'), repository_id: repository.id, ...placement, number: 1, title: 'PR', state: 'open', author_id: DEMO.users.ada, created_at: new Date('2026-03-02T00:00:00Z'), merged_at: null, closed_at: null });
  // 201 reviewers of ada's pull request, as the review writer keeps them; the first gave two review actions.
  const reviewers = Array.from({ length: REVIEW_LOAD_REVIEWERS + 1 }, (_, i) => `usr_reviewer${String(i).padStart(3, '0')}`);
  const review = (actor: string, n: number) => ({
    id: newId('pra'), pull_request_id: pr.id, repository_id: repository.id, ...placement, kind: 'comment' as const, actor_id: actor,
    external_id: `${actor}-${n}`, created_at: new Date('2026-03-03T00:00:00Z'), pull_request_author_id: DEMO.users.ada, peer_review: true,
  });
  await PullRequestActivity.bulkCreate([review(reviewers[0], 2), ...reviewers.map((r) => review(r, 1))]);
  const res = await collaboration({ organization_id: lab.organizationId, ...WEEK });
  expect(res.status).toBe(200);
  const data = res.body.data;
  expect([data.reviews, data.reviewers, data.review_load.length, data.review_network.length]).toEqual([202, 201, REVIEW_LOAD_REVIEWERS, REVIEW_NETWORK_EDGES]);
  expect(data.review_load[0]).toEqual({ user_id: reviewers[0], reviews: 2, share: 0.0099 });
  // Then the ones, by id: the last reviewer is left out.
  expect(data.review_load.slice(1).map((l: { user_id: string }) => l.user_id)).toEqual(reviewers.slice(1, REVIEW_LOAD_REVIEWERS));
  expect(data.review_network[0]).toEqual({ reviewer_id: reviewers[0], author_id: DEMO.users.ada, reviews: 2 });
  // Gini of 200 ones and a two: Σ(2i − n − 1)·cᵢ = 200 (only the two, last, weighs more) ÷ (201 · 202); coverage 1 (3 members).
  expect(data.sharing_index).toBe(Math.round(1000 * (1 - 200 / (201 * 202))) / 10);
});

describe('per-person lists: for admins and the team’s managers only', () => {
  const lists = (data: Record<string, unknown>) => [data.review_load, data.review_network, data.knowledge_silos];

  test('an organization: its admin sees them, a collaborator gets null and every other figure', async () => {
    const admin = (await collaboration({ organization_id: DEMO.orgs.acme })).body.data;
    expect(lists(admin).every(Array.isArray)).toBe(true);
    const linus = await t.token({ user: DEMO.emails.linus });
    const res = await collaboration({ organization_id: DEMO.orgs.acme }, linus);
    expect(res.status).toBe(200);
    expect(lists(res.body.data)).toEqual([null, null, null]);
    expect(res.body.data).toEqual({ ...admin, review_load: null, review_network: null, knowledge_silos: null });
  });

  test("a team: its manager sees them; a member, or a manager of another team, does not", async () => {
    const grace = await t.token({ user: DEMO.emails.grace });
    expect(lists((await collaboration({ team_id: DEMO.teams.platform }, grace)).body.data).every(Array.isArray)).toBe(true);
    const linus = await t.token({ user: DEMO.emails.linus });
    expect(lists((await collaboration({ team_id: DEMO.teams.platform }, linus)).body.data)).toEqual([null, null, null]);
    expect(lists((await collaboration({ team_id: DEMO.teams.mobile }, grace)).body.data)).toEqual([null, null, null]);
  });

  test('another organization is 403, as for every metric', async () => {
    const linus = await t.token({ user: DEMO.emails.linus });
    expect((await collaboration({ organization_id: DEMO.orgs.globex }, linus)).status).toBe(403);
  });
});
