import type { Browser } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * The settings page's Members (docs/settings.md#members) in Debian's chromium, as Globex's admin uses it: found by
 * roles and labels, a member added from the keyboard, given another role, removed after a confirmation (Escape
 * cancels it first), the last admin's removal refused in words; each step checked on the REST API.
 */

const describeBrowser = describeInBrowser('membersPage');

let t: TestApp;
let base: string;
let browser: Browser;
let opened: WatchedPage | undefined;

describeBrowser('the members on the settings page in chromium', () => {
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

  test('margaret adds a member by keyboard, makes them a manager, and removes them after a confirmation', async () => {
    // The last admin's refusal (409) is caused on purpose.
    opened = await watchedPage(browser, { expectStatuses: [409] });
    const { page } = opened;
    await signInThroughLink(page, base, DEMO.users.margaret);
    const token = await t.token({ user: DEMO.emails.margaret });
    const onV1 = async () => (await t.get(`/v1/organizations/${DEMO.orgs.globex}/members?per_page=100`, token)).body.data as { id: string; email: string; role: string }[];
    const members = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Members', exact: true });
    await members.getByRole('row', { name: new RegExp(DEMO.emails.outsider) }).waitFor();

    await members.getByLabel('E-mail').focus();
    await page.keyboard.type('Page.Person@Globex.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Page Person');
    await page.keyboard.press('Enter');
    await members.getByRole('status').filter({ hasText: 'Added Page Person (page.person@globex.test) as collaborator.' }).waitFor();
    expect((await onV1()).find((m) => m.email === 'page.person@globex.test')).toMatchObject({ role: 'collaborator' });

    const row = members.getByRole('row', { name: /page\.person@globex\.test/ });
    await row.getByRole('combobox', { name: 'Role of Page Person' }).selectOption('manager');
    await row.getByRole('button', { name: 'Set role of Page Person' }).click();
    await members.getByRole('status').filter({ hasText: 'Page Person is now manager.' }).waitFor();
    expect((await onV1()).find((m) => m.email === 'page.person@globex.test')?.role).toBe('manager');

    // Escape cancels a confirmation; the second press removes.
    await row.getByRole('button', { name: /^Remove Page Person/ }).click();
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: /^Remove Page Person/ }).click();
    await row.getByRole('button', { name: /^Confirm remove Page Person/ }).click();
    await members.getByRole('status').filter({ hasText: 'Removed Page Person from Globex' }).waitFor();
    expect((await onV1()).map((m) => m.email)).not.toContain('page.person@globex.test');

    // Margaret is Globex's one admin: removing herself is refused, saying why.
    const self = members.getByRole('row', { name: new RegExp(DEMO.emails.margaret) });
    await self.getByRole('button', { name: /^Remove/ }).click();
    await self.getByRole('button', { name: /^Confirm remove/ }).click();
    await members.getByRole('alert').filter({ hasText: 'an organization keeps at least one' }).waitFor();
  });
});
