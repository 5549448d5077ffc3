import { PullRequest } from '../../db/models';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { MEASURES } from '../../db/rollups/pullRequestMeasures';
import { measureRead } from '../../src/services/metrics/settings/drafts';
import { parseCommand } from '../../scripts/metricsSettings';
import { UsageError } from '../../scripts/cli';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { createLab } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';
import { copy, deliverToGithub, deliverToGitlab, githubExamples } from '../support/peers/ingest';
import { mergeRequestHook } from '../support/peers/gitlabPayloads';
import { BITBUCKET_PAYLOADS, deliverToBitbucket } from '../support/peers/bitbucket/deliveries';

/**
 * A draft's times from when it became ready for review (docs/metrics.md#what-counts: `drafts_from_ready`), as
 * Swarmia and LinearB count them. GitHub's own example deliveries (@octokit/webhooks-examples: pull_request
 * `opened`, `converted_to_draft`, `ready_for_review`, `closed`, and pull_request_review `submitted`), moved to the week
 * of Monday May 4, 2026 and to a repository of this lab's. Worked by hand:
 *
 *   opened as a draft      Mon May 4  09:00
 *   ready for review       Wed May 6  09:00   (the `ready_for_review` delivery's pull_request.updated_at)
 *   reviewed by Grace      Wed May 6  15:00
 *   merged                 Thu May 7  09:00
 *
 *   from opening (default):  time to merge 72 h, pickup 54 h
 *   from ready for review:   time to merge 24 h, pickup  6 h
 */
let t: TestApp;
let org: string;
let gitApp: { id: string; secret: string };
let token: string;
let ada: SettingsBrowser;
let cli: (...args: string[]) => Promise<CliRun>;
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => `2026-05-${String(day).padStart(2, '0')}T${time}:00Z`;
const NUMBER = 41;

const example = (event: string, action: string) => copy(githubExamples(event).find((p) => p.action === action)!);

/** GitHub's example of `action`, made this lab's pull request as it stood at `updated`. */
function delivery(action: string, updated: string, pr: Record<string, unknown>) {
  const body = example('pull_request', action);
  body.repository = { ...body.repository, id: repositoryId, name: 'drafts', full_name: 'lab/drafts' };
  Object.assign(body.pull_request, { number: NUMBER, created_at: at(4, '09:00'), updated_at: updated, ...pr });
  body.number = NUMBER;
  return body;
}
let repositoryId: number;

async function send(event: string, payload: unknown) {
  const res = await deliverToGithub(t, gitApp.id, gitApp.secret, { event, payload });
  expect([event, res.status]).toEqual([event, 200]);
}

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  token = await t.token();
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, new URL(publicBase(t.config)).origin);
  cli = appCli(t, 'metricsSettings');
  const created = await createLab(t, `Drafts ${unique()}`);
  org = created.lab.organizationId;
  gitApp = { id: created.gitAppId, secret: created.secret };
  repositoryId = 900_000 + Math.floor(Math.random() * 99_999);

  await send('pull_request', delivery('opened', at(4, '09:00'), { draft: true }));
  await send('pull_request', delivery('ready_for_review', at(6, '09:00'), { draft: false }));
  const review = example('pull_request_review', 'submitted');
  review.repository = delivery('opened', at(6, '15:00'), {}).repository;
  Object.assign(review.pull_request, { number: NUMBER, created_at: at(4, '09:00'), updated_at: at(6, '15:00'), draft: false });
  Object.assign(review.review, { submitted_at: at(6, '15:00'), user: { ...review.review.user, login: 'grace', id: 4242 } });
  await send('pull_request_review', review);
  await send('pull_request', delivery('closed', at(7, '09:00'), { draft: false, state: 'closed', merged: true, merged_at: at(7, '09:00'), closed_at: at(7, '09:00') }));
});
afterAll(async () => t?.close());

const stored = async () => {
  const pr = (await PullRequest.findOne({ where: { organization_id: org, number: NUMBER } }))!;
  return { draft: Boolean(pr.draft), ready_for_review_at: pr.ready_for_review_at?.toISOString() ?? null };
};

async function figures() {
  const get = async (path: string) => {
    const res = await t.get(`/v1/metrics/${path}?${new URLSearchParams({ organization_id: org, ...WEEK })}`, token);
    expect([path, res.status]).toEqual([path, 200]);
    return res.body;
  };
  const [pullRequests, collaboration] = [await get('pull-requests'), await get('collaboration')];
  return { merge: pullRequests.data.time_to_merge_hours.median, pickup: collaboration.data.pickup_hours.median, version: pullRequests.meta.settings_version };
}

const settings = (change: Record<string, unknown>) => t.runtime.writers.metricSettings.update(org, change, OPERATOR);

test('the writer keeps when the draft became ready for review; time to merge and pickup run from opening by default, from ready once drafts_from_ready is true, and back when false', async () => {
  expect(await stored()).toEqual({ draft: false, ready_for_review_at: '2026-05-06T09:00:00.000Z' });
  expect(await figures()).toEqual({ merge: 72, pickup: 54, version: 0 });
  await settings({ drafts_from_ready: true });
  expect(await figures()).toEqual({ merge: 24, pickup: 6, version: 1 });
  await settings({ drafts_from_ready: false });
  expect(await figures()).toEqual({ merge: 72, pickup: 54, version: 2 });
});

test('a late older delivery does not move ready_for_review_at: converted to draft and ready again before this, it changes nothing', async () => {
  await send('pull_request', delivery('converted_to_draft', at(5, '09:00'), { draft: true }));
  await send('pull_request', delivery('ready_for_review', at(5, '12:00'), { draft: false }));
  expect(await stored()).toEqual({ draft: false, ready_for_review_at: '2026-05-06T09:00:00.000Z' });
});

test("converted back and forth: the last ready before the merge counts; a GitLab merge request's draft turned off sets it at its update time", async () => {
  const other = 42;
  const body = (action: string, updated: string, pr: Record<string, unknown>) => ({ ...delivery(action, updated, pr), number: other, pull_request: { ...delivery(action, updated, pr).pull_request, number: other } });
  await send('pull_request', body('opened', at(4, '10:00'), { draft: true }));
  await send('pull_request', body('ready_for_review', at(4, '11:00'), { draft: false }));
  await send('pull_request', body('converted_to_draft', at(5, '10:00'), { draft: true }));
  await send('pull_request', body('ready_for_review', at(5, '16:00'), { draft: false }));
  const pr = (await PullRequest.findOne({ where: { organization_id: org, number: other } }))!;
  expect([Boolean(pr.draft), pr.ready_for_review_at?.toISOString()]).toEqual([false, '2026-05-05T16:00:00.000Z']);

  // GitLab's own Merge Request Hook example: `changes.draft` from true to false.
  const gitlab = await t.runtime.writers.gitApps.create(org, 'gitlab', `GitLab ${unique()}`);
  const hook = copy(mergeRequestHook) as Record<string, any>;
  expect(hook.changes.draft).toEqual({ previous: true, current: false });
  const res = await deliverToGitlab(t, gitlab.gitApp.id, gitlab.secret, { event: 'Merge Request Hook', payload: hook });
  expect(res.status).toBe(200);
  const mr = (await PullRequest.findOne({ where: { git_app_id: gitlab.gitApp.id, number: hook.object_attributes.iid } }))!;
  expect([Boolean(mr.draft), mr.ready_for_review_at?.toISOString()]).toEqual([false, new Date(hook.object_attributes.updated_at).toISOString()]);
});

test("Bitbucket's draft says no time: a stored draft a newer delivery shows ready became ready by that delivery's updated_on", async () => {
  const bitbucket = await t.runtime.writers.gitApps.create(org, 'bitbucket', `Bitbucket ${unique()}`);
  // A captured pullrequest:updated (draft false, updated 2026-07-30T01:35:49Z), first as it stood a day before, a draft.
  const ready = copy(BITBUCKET_PAYLOADS['pullrequest:updated']);
  const draft = copy(ready);
  Object.assign(draft.pullrequest, { draft: true, updated_on: '2026-07-29T01:35:49.207341+00:00' });
  for (const payload of [draft, ready]) {
    const res = await deliverToBitbucket(t, bitbucket.gitApp.id, bitbucket.secret, { event: 'pullrequest:updated', payload });
    expect(res.status).toBe(200);
  }
  const pr = (await PullRequest.findOne({ where: { git_app_id: bitbucket.gitApp.id, number: ready.pullrequest.id } }))!;
  expect([Boolean(pr.draft), pr.ready_for_review_at?.toISOString()]).toEqual([false, '2026-07-30T01:35:49.207Z']);
});

test('settings.metrics.update round-trips drafts_from_ready; anything but a boolean is 400 naming it, and nothing changes', async () => {
  const before = (await ada.query('settings.metrics.get', { organization_id: org })).body.result.data;
  expect(before).toMatchObject({ drafts_from_ready: false, defaults: { drafts_from_ready: false } });
  for (const value of ['true', 1, null, ['true']]) {
    const res = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { drafts_from_ready: value } });
    expect([value, res.status, res.body.error.message]).toEqual([value, 400, expect.stringContaining('drafts_from_ready must be true or false')]);
  }
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data.version).toBe(before.version);
  const saved = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { drafts_from_ready: true } });
  expect(saved.body.result.data).toMatchObject({ version: before.version + 1, drafts_from_ready: true });
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data).toMatchObject({ drafts_from_ready: true });
  await settings({ drafts_from_ready: false });
});

test('npm run metrics-settings: --drafts-from-ready true|false sets it and show prints it; anything else exits 2', async () => {
  const set = await cli('set', '--org', org, '--drafts-from-ready', 'TRUE', '--json');
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout)).toMatchObject({ drafts_from_ready: true });
  expect((await cli('show', '--org', org)).stdout).toContain('drafts measured from ready for review: true   (default: false)');
  expect((await cli('set', '--org', org, '--drafts-from-ready', 'false')).code).toBe(0);
  expect((await figures()).merge).toBe(72);
  const usage = await cli('set', '--org', org, '--drafts-from-ready', 'yes');
  expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('--drafts-from-ready takes true or false, not "yes"')]);
  expect(parseCommand(['set', '--org', org, '--drafts-from-ready', 'true'])).toMatchObject({ kind: 'set', org, settings: { drafts_from_ready: true } });
  expect(() => parseCommand(['set', '--org', org, '--drafts-from-ready', ''])).toThrow(UsageError);
});

test('the measure read: merge, pickup and approval from ready under the setting; the others as they are', () => {
  const on = { drafts_from_ready: true };
  expect([measureRead(on, 'merge'), measureRead(on, 'pickup'), measureRead(on, 'approval'), measureRead(on, 'reviewToMerge')]).toEqual([
    MEASURES.mergeFromReady,
    MEASURES.pickupFromReady,
    MEASURES.approvalFromReady,
    MEASURES.reviewToMerge,
  ]);
  expect(measureRead({ drafts_from_ready: false }, 'merge')).toBe(MEASURES.merge);
});
