import type { Browser } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Team } from '../../db/models';

/**
 * The settings page's Teams (docs/settings.md#teams) in Debian's chromium, as Globex's admin uses it: found by roles
 * and labels, a team made, its member added by e-mail from the keyboard and named its manager, renamed, the member
 * taken off and the team deleted after confirmations; each step checked on the REST API.
 */

const describeBrowser = describeInBrowser('teamsPage');

let t: TestApp;
let base: string;
let browser: Browser;
let opened: WatchedPage | undefined;

describeBrowser('the teams on the settings page in chromium', () => {
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
    // A CSP violation, a script error or a failed request is a console error: the page must have none.
    expect(problems).toEqual([]);
  });

  test('margaret makes a team, adds a member by e-mail with the keyboard, names the manager, renames, removes and deletes', async () => {
    // The taken name's 409 is caused on purpose.
    opened = await watchedPage(browser, { expectStatuses: [409] });
    const { page } = opened;
    await signInThroughLink(page, base, DEMO.users.margaret);
    const token = await t.token({ user: DEMO.emails.margaret });
    const teams = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Teams', exact: true });
    await teams.getByRole('row', { name: /Core/ }).waitFor();

    await teams.getByLabel('Name').fill('core');
    await teams.getByRole('button', { name: 'Make team' }).click();
    await teams.getByRole('alert').filter({ hasText: 'already has a team named core' }).waitFor();
    await teams.getByLabel('Name').fill('Page Team');
    await teams.getByRole('button', { name: 'Make team' }).click();
    await teams.getByRole('status').filter({ hasText: 'Made team Page Team.' }).waitFor();
    const row = teams.getByRole('row', { name: /Page Team/ });
    expect((await row.getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['Page Team', '0', 'This page']);
    const team = await Team.findOne({ where: { organization_id: DEMO.orgs.globex, name: 'Page Team' } });
    expect((await t.get(`/v1/teams/${team!.id}`, token)).body.data).toMatchObject({ name: 'Page Team', organization_id: DEMO.orgs.globex });

    // The members' panel opens with its heading focused; the rest by keyboard.
    await row.getByRole('button', { name: 'Members of Page Team' }).click();
    const members = teams.getByRole('region', { name: 'Members of Page Team' });
    await members.getByText('No members yet.').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type(DEMO.emails.outsider);
    await page.keyboard.press('Enter');
    await members.getByRole('status').filter({ hasText: `Added ${DEMO.emails.outsider} to Page Team.` }).waitFor();
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
    const listed = await t.get(`/v1/teams/${team!.id}/members`, token);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.outsider]);

    const memberRow = members.getByRole('row', { name: new RegExp(DEMO.emails.outsider) });
    await memberRow.getByRole('button', { name: /^Make manager/ }).click();
    await memberRow.getByRole('cell', { name: 'Manager', exact: true }).waitFor();
    expect((await t.get(`/v1/teams/${team!.id}/managers`, token)).body.data.map((m: { id: string }) => m.id)).toEqual([DEMO.users.outsider]);

    // Escape cancels a confirmation; the second press removes.
    await memberRow.getByRole('button', { name: /^Remove/ }).click();
    await page.keyboard.press('Escape');
    expect(await members.getByRole('row').count()).toBe(2);
    await memberRow.getByRole('button', { name: /^Remove/ }).click();
    await memberRow.getByRole('button', { name: /^Confirm remove/ }).click();
    await members.getByText('No members yet.').waitFor();
    expect((await t.get(`/v1/teams/${team!.id}/members`, token)).body.data).toEqual([]);
    await members.getByRole('button', { name: 'Close members of Page Team' }).click();

    await row.getByRole('button', { name: 'Rename Page Team' }).click();
    await teams.getByLabel('New name').fill('Page Crew');
    await teams.getByRole('button', { name: 'Rename', exact: true }).click();
    await teams.getByRole('status').filter({ hasText: 'Renamed Page Team to Page Crew.' }).waitFor();
    expect((await t.get(`/v1/teams/${team!.id}`, token)).body.data.name).toBe('Page Crew');

    const renamed = teams.getByRole('row', { name: /Page Crew/ });
    await renamed.getByRole('button', { name: 'Delete team Page Crew' }).click();
    await renamed.getByRole('button', { name: 'Confirm delete team Page Crew' }).click();
    await teams.getByRole('status').filter({ hasText: 'Deleted team Page Crew' }).waitFor();
    expect((await t.get(`/v1/teams/${team!.id}`, token)).status).toBe(404);
  });
});
