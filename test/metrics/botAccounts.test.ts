import { PullRequest, PullRequestActivity } from '../../db/models';
import { publicBase } from '../../src/config';
import { Recomputations } from '../../src/services/metrics/settings/recomputation';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { parseCommand } from '../../scripts/metricsSettings';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { deliverReviewHistory, Step } from '../support/data/reviewHistory';
import { eventually } from '../support/peers/receiver';

/**
 * Bots out of the pull-request and collaboration figures (docs/metrics.md#bots), on a week of GitHub's own example
 * payloads (@octokit/webhooks-examples) made to say who acted: Dependabot's real account (`dependabot[bot]`, id
 * 49699333), CodeRabbit's reviewer, and the lab's own `release-bot`, which no maintained list knows.
 *   #1 ada, opened Mar 2 09:00, approved by grace, merged 19:00: 10 h.
 *   #2 dependabot[bot], opened Mar 3 08:00, approved by grace 08:30, merged 09:00: 1 h.
 *   #3 release-bot, opened Mar 4 10:00, commented by ada 10:10, merged Mar 5 16:00: 30 h.
 *   #4 margaret, opened Mar 5 09:00, commented by coderabbitai[bot] 09:05, approved by grace 12:00, merged 21:00: 12 h.
 * By default (the maintained list): #1, #3, #4 merged, times [10, 12, 30] → median 12; reviews: grace's two approvals
 * and ada's comment, 3. Without the list: all four, [1, 10, 12, 30] → median 10 (nearest rank 2); 5 reviews. The list
 * and `release-*`: #1 and #4, [10, 12] → 10; 2 reviews.
 */
let t: TestApp;
let ada: SettingsBrowser;
let token: string;
let lab: string;

const WEEK = { from: '2026-03-02', to: '2026-03-08' };
const HISTORY: Step[] = [
  { do: 'open', pr: 1, by: 'ada', at: '2026-03-02T09:00:00Z' },
  { do: 'approved', pr: 1, by: 'grace', at: '2026-03-02T11:00:00Z' },
  { do: 'merge', pr: 1, by: 'ada', at: '2026-03-02T19:00:00Z' },
  { do: 'open', pr: 2, by: 'dependabot[bot]', at: '2026-03-03T08:00:00Z' },
  { do: 'approved', pr: 2, by: 'grace', at: '2026-03-03T08:30:00Z' },
  { do: 'merge', pr: 2, by: 'ada', at: '2026-03-03T09:00:00Z' },
  { do: 'open', pr: 3, by: 'release-bot', at: '2026-03-04T10:00:00Z' },
  { do: 'comment', pr: 3, by: 'ada', at: '2026-03-04T10:10:00Z' },
  { do: 'merge', pr: 3, by: 'release-bot', at: '2026-03-05T16:00:00Z' },
  { do: 'open', pr: 4, by: 'margaret', at: '2026-03-05T09:00:00Z' },
  { do: 'comment', pr: 4, by: 'coderabbitai[bot]', at: '2026-03-05T09:05:00Z' },
  { do: 'approved', pr: 4, by: 'grace', at: '2026-03-05T12:00:00Z' },
  { do: 'merge', pr: 4, by: 'margaret', at: '2026-03-05T21:00:00Z' },
];

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, new URL(publicBase(t.config)).origin);
  token = await t.token();
  lab = (await deliverReviewHistory(t, 'github', HISTORY)).organizationId;
});
afterAll(async () => t?.close());

const get = (path: string) => t.get(`/v1/metrics/${path}?organization_id=${lab}&from=${WEEK.from}&to=${WEEK.to}`, token);
const settingsOf = () => ada.query('settings.metrics.get', { organization_id: lab });
const update = (settings: unknown) => ada.mutate('settings.metrics.update', { organization_id: lab, settings });

/** What the figures say of the week, and the settings' version they say they were computed under. */
async function figures() {
  const [pulls, collaboration] = await Promise.all([get('pull-requests'), get('collaboration')]);
  expect(pulls.status).toBe(200);
  expect(collaboration.status).toBe(200);
  expect(collaboration.body.meta.settings_version).toBe(pulls.body.meta.settings_version);
  return {
    version: pulls.body.meta.settings_version as number,
    opened: pulls.body.data.opened as number,
    merged: pulls.body.data.merged as number,
    median: pulls.body.data.time_to_merge_hours.median as number,
    reviews: collaboration.body.data.reviews as number,
  };
}

const DEFAULT_LIST = { opened: 3, merged: 3, median: 12, reviews: 3 };
const EVERY_ACCOUNT = { opened: 4, merged: 4, median: 10, reviews: 5 };
const LIST_AND_RELEASE_BOT = { opened: 2, merged: 2, median: 10, reviews: 2 };

test("GitHub's deliveries keep who acted, and the maintained list leaves Dependabot's pull request and CodeRabbit's comment out by default", async () => {
  const dependabot = await PullRequest.findOne({ where: { organization_id: lab, author_login: 'dependabot[bot]' } });
  expect(dependabot).not.toBeNull();
  expect(dependabot!.bot).toBe(3);
  expect((await PullRequest.findOne({ where: { organization_id: lab, author_login: 'release-bot' } }))!.bot).toBe(0);
  const rabbit = await PullRequestActivity.findOne({ where: { organization_id: lab, actor_login: 'coderabbitai[bot]' } });
  expect(rabbit!.bot).toBe(3);
  expect(await figures()).toEqual({ version: 0, ...DEFAULT_LIST });
});

test('a change of the bots is recomputed over the history in the background, then applies at once to every figure, and back again', async () => {
  const res = await update({ bot_default_list: false });
  expect(res.status).toBe(200);
  // The answer is the settings in force and the recomputation that will replace them.
  expect(res.body.result.data.version).toBe(0);
  expect(res.body.result.data.recomputation).toMatchObject({ version: 1, settings: { bot_default_list: false } });
  await eventually('the recomputation to end', async () => (await settingsOf()).body.result.data.recomputation === null);
  expect((await settingsOf()).body.result.data).toMatchObject({ version: 1, bot_default_list: false });
  expect(await figures()).toEqual({ version: 1, ...EVERY_ACCOUNT });

  await update({ bot_default_list: true, bot_accounts: ['Release-*'] });
  await eventually('the recomputation to end', async () => (await settingsOf()).body.result.data.recomputation === null);
  expect((await settingsOf()).body.result.data).toMatchObject({ version: 2, bot_accounts: ['release-*'], bot_default_list: true });
  expect(await figures()).toEqual({ version: 2, ...LIST_AND_RELEASE_BOT });
});

test('while a recomputation runs the figures are those of the settings in force, never a mix, and say so; its progress shows', async () => {
  // This test runs the chunks itself, one pull request each.
  await t.runtime.recomputations.stop();
  const before = await figures();
  expect(before).toMatchObject(LIST_AND_RELEASE_BOT);
  await update({ bot_accounts: [] });
  const chunks = new Recomputations(ChangeRunner.for(t.runtime.sequelize), { chunk: 1 });
  for (let done = 1; done <= 4; done++) {
    expect(await chunks.step(lab)).toBe(true);
    expect((await settingsOf()).body.result.data.recomputation).toMatchObject({ version: before.version + 1, done, total: 4 });
    expect(await figures()).toEqual(before);
  }
  expect(await chunks.step(lab)).toBe(false);
  expect((await settingsOf()).body.result.data.recomputation).toBeNull();
  expect(await figures()).toEqual({ version: before.version + 1, ...DEFAULT_LIST });
});

test('a change that keeps the bots applies at once; bad input is a 400 that names what to fix', async () => {
  const { version } = (await settingsOf()).body.result.data;
  const same = await update({ bot_accounts: [], incident_urgency: 'high' });
  expect(same.body.result.data).toMatchObject({ version: version + 1, recomputation: null });
  for (const [settings, message] of [
    [{ bot_accounts: 'dependabot' }, 'bot_accounts must be a list of logins or globs'],
    [{ bot_accounts: [''] }, 'a bot account must not be empty'],
    [{ bot_default_list: 'yes' }, 'bot_default_list must be true or false'],
  ] as const) {
    const res = await update(settings);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
  }
});

test('npm run metrics-settings takes the bots as flags', () => {
  expect(parseCommand(['set', '--org', 'org_1', '--bots', 'release-bot, svc-*', '--bot-default-list', 'false'])).toMatchObject({
    settings: { bot_accounts: ['release-bot', 'svc-*'], bot_default_list: false },
  });
});
