import type { Browser } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * The settings page's What counts (docs/settings.md#what-counts) in Debian's chromium, as Acme's admin uses it: the
 * defaults shown as version 0, the production environments changed from the keyboard, saved as version 1 and named
 * by the next metric answer; the same again changes nothing; an empty list refused in words; a bot named, its
 * recomputation shown until it is in force.
 */

const describeBrowser = describeInBrowser('metricSettingsPage');

let t: TestApp;
let base: string;
let browser: Browser;
let opened: WatchedPage | undefined;

describeBrowser('what counts on the settings page in chromium', () => {
  beforeAll(async () => {
    assertBrowser();
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000' });
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(async () => {
    const problems = opened?.problems ?? [];
    await opened?.context.close();
    opened = undefined;
    expect(problems).toEqual([]);
  });

  /**
   * Acme's What counts, as ada sees it signed in (`expectStatuses`: the refusals the test causes on purpose), with a
   * token of hers to ask the API the same figures.
   */
  async function whatCountsAsAda(expectStatuses: number[] = []) {
    opened = await watchedPage(browser, expectStatuses.length ? { expectStatuses } : undefined);
    const { page } = opened;
    await signInThroughLink(page, base, DEMO.users.ada);
    const token = await t.token();
    const counts = page.getByRole('region', { name: 'Acme' }).getByRole('region', { name: 'What counts', exact: true });
    return { page, token, counts };
  }

  test('ada sets the production environments by keyboard; the next answer names the new version', async () => {
    // The empty list's refusal (400) is caused on purpose.
    const { page, token, counts } = await whatCountsAsAda([400]);
    const versionOnV1 = async () => (await t.get(`/v1/metrics/dora?organization_id=${DEMO.orgs.acme}`, token)).body.meta.settings_version;
    await counts.getByText('Version 0 (the defaults: never changed).').waitFor();
    await counts.getByRole('row', { name: /Production environments production production/ }).waitFor();
    expect(await versionOnV1()).toBe(0);

    const input = counts.getByLabel('Production environments');
    await input.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('production, Prod-*, live');
    await page.keyboard.press('Enter');
    await counts.getByRole('status').filter({ hasText: 'Saved as version 1: the figures count it from now on, for their whole history.' }).waitFor();
    await counts.getByRole('row', { name: /Production environments production, prod-\*, live production/ }).waitFor();
    expect(await versionOnV1()).toBe(1);

    // Saved again as it is: no new version.
    await counts.getByRole('button', { name: 'Save', exact: true }).click();
    await counts.getByRole('status').filter({ hasText: 'Nothing changed: these are the settings in force.' }).waitFor();
    expect(await versionOnV1()).toBe(1);

    // Which incidents count: high urgency, P1 and P2 only.
    await counts.getByLabel('Incident urgency').selectOption('high');
    await counts.getByLabel('Incident priorities').fill('p1, P2');
    await counts.getByRole('button', { name: 'Save', exact: true }).click();
    await counts.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
    await counts.getByRole('row', { name: /Incident urgency high any/ }).waitFor();
    await counts.getByRole('row', { name: /Incident priorities P1, P2 any/ }).waitFor();
    expect(await versionOnV1()).toBe(2);

    await counts.getByLabel('Incident priorities').fill('P9');
    await counts.getByRole('button', { name: 'Save', exact: true }).click();
    await counts.getByRole('alert').filter({ hasText: 'incident priority "P9" is none of P1, P2, P3, P4, P5' }).waitFor();

    await counts.getByLabel('Incident priorities').fill('P1, P2');
    await counts.getByLabel('Production environments').fill(' , ');
    await counts.getByRole('button', { name: 'Save', exact: true }).click();
    await counts.getByRole('alert').filter({ hasText: 'no deployment would count' }).waitFor();
    expect(await versionOnV1()).toBe(2);
  });

  test("ada makes Platform own acme/web, then gives it back its members' repositories", async () => {
    const { page, token, counts } = await whatCountsAsAda([400]);
    const platformOnV1 = async () => (await t.get(`/v1/metrics/dora?team_id=${DEMO.teams.platform}`, token)).body;
    await counts.getByLabel('Team').selectOption({ label: 'Platform' });
    await counts.getByText(/^Platform owns no repositories: its figures cover those its members authored commits in: .*acme\/api/).waitFor();
    const before = await platformOnV1();
    expect(before.data.scope.repositories).toBe('authored');

    await counts.getByLabel('Repositories it owns').fill('ACME/web');
    await page.keyboard.press('Enter');
    await counts.getByRole('status').filter({ hasText: `Saved as version ${before.meta.settings_version + 1}: Platform’s figures cover the repositories it owns.` }).waitFor();
    await counts.getByText('Platform owns acme/web.').waitFor();
    expect((await platformOnV1()).data.scope).toMatchObject({ team_id: DEMO.teams.platform, repositories: 'owned' });

    await counts.getByLabel('Repositories it owns').fill('acme/nope');
    await counts.getByRole('button', { name: 'Save repositories' }).click();
    await counts.getByRole('alert').filter({ hasText: 'acme/nope' }).waitFor();

    await counts.getByRole('button', { name: 'Use its members’ repositories' }).click();
    await counts.getByRole('status').filter({ hasText: `Saved as version ${before.meta.settings_version + 2}: Platform’s figures cover its members’ repositories.` }).waitFor();
    expect((await platformOnV1()).data.scope.repositories).toBe('authored');
  });
  test('ada gives acme/web production environments of its own, then the organization’s back', async () => {
    const { page, token, counts } = await whatCountsAsAda([400]);
    const versionOnV1 = async () => (await t.get(`/v1/metrics/dora?organization_id=${DEMO.orgs.acme}`, token)).body.meta.settings_version;
    await counts.getByText('None: every repository counts the organization’s production environments.').waitFor();
    const before = await versionOnV1();

    await counts.getByLabel('Repository', { exact: true }).fill('acme/web');
    await counts.getByLabel('Environments that count as its production').fill('Live, prod-eu-*');
    await page.keyboard.press('Enter');
    await counts.getByRole('status').filter({ hasText: `Saved as version ${before + 1}: acme/web’s deployments to live, prod-eu-* count as production, for their whole history.` }).waitFor();
    await counts.getByRole('row', { name: /acme\/web live, prod-eu-\*/ }).waitFor();
    expect(await versionOnV1()).toBe(before + 1);

    await counts.getByLabel('Repository', { exact: true }).fill('acme/nope');
    await counts.getByLabel('Environments that count as its production').fill('live');
    await counts.getByRole('button', { name: 'Save its environments' }).click();
    await counts.getByRole('alert').filter({ hasText: 'No repository acme/nope in organization org_acme' }).waitFor();

    await counts.getByRole('button', { name: 'Use the organization’s for acme/web' }).click();
    await counts.getByRole('status').filter({ hasText: `Saved as version ${before + 2}: acme/web counts the organization’s production environments again.` }).waitFor();
    await counts.getByText('None: every repository counts the organization’s production environments.').waitFor();
    expect(await versionOnV1()).toBe(before + 2);
  });

  test('ada names the release bot; the page shows the change recomputed over the history, then in force', async () => {
    const { token, counts } = await whatCountsAsAda();
    const versionOnV1 = async () => (await t.get(`/v1/metrics/pull-requests?organization_id=${DEMO.orgs.acme}`, token)).body.meta.settings_version;
    await counts.getByRole('row', { name: /Bot accounts the maintained list the maintained list/ }).waitFor();
    const before = await versionOnV1();

    await counts.getByLabel('Bot accounts').fill('Release-bot');
    await counts.getByRole('button', { name: 'Save', exact: true }).click();
    await counts.getByRole('status').filter({ hasText: `Saved as version ${before + 1}: it is being recomputed over the history` }).waitFor();
    // The service recomputes in the background; the page asks again until it is done.
    await counts.getByRole('row', { name: /Bot accounts release-bot and the maintained list the maintained list/ }).waitFor();
    await counts.getByText(`Version ${before + 1}, saved`).waitFor();
    expect(await versionOnV1()).toBe(before + 1);
  });

  test('ada prices a Copilot seat, then unsets it', async () => {
    const { counts } = await whatCountsAsAda();
    const copilot = counts.getByLabel('Seat price of copilot');
    await copilot.fill('19');
    await counts.getByRole('button', { name: 'Save seat price of copilot' }).click();
    await counts.getByRole('status').filter({ hasText: /copilot’s seat price is 19 \w{3} a month per active user\./ }).waitFor();
    const priced = await t.runtime.writers.costRates.seatPrices(DEMO.orgs.acme);
    expect(priced.tools.find((tool) => tool.tool === 'copilot')?.monthly).toBe(19);

    await counts.getByLabel('Seat price of copilot').fill('');
    await counts.getByRole('button', { name: 'Save seat price of copilot' }).click();
    await counts.getByRole('status').filter({ hasText: 'copilot has no seat price.' }).waitFor();
    expect((await t.runtime.writers.costRates.seatPrices(DEMO.orgs.acme)).tools.find((tool) => tool.tool === 'copilot')?.monthly).toBeNull();
  });
});
