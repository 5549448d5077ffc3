import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { DASHBOARD_TYPES } from '../../src/services/dashboards/catalog';

/**
 * The dashboards page (/dashboards/, docs/dashboards.md) in Debian's chromium, as a manager uses it: signed in with a
 * one-time link, a view made from the catalog and opened for Acme over a year by month; the numbers each panel shows
 * (its figure, its chart's own data, its table) are the Metrics API's for the same scope and window. Others see what
 * the access rules allow, and the page says why not.
 */

const describeBrowser = describeInBrowser('dashboardsPage');

// What page.evaluate touches in the page (the project compiles without the DOM library).
interface DrawnCanvas {
  chart?: { data: { labels: string[]; datasets: { label: string; data: (number | null)[] }[] } };
}
interface Focused {
  tagName: string;
  textContent: string | null;
  labels?: ArrayLike<{ textContent: string | null }> | null;
}
interface Found extends DrawnCanvas {
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): Found | null; activeElement: Focused | null };

const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts');
const DORA_TYPE = DASHBOARD_TYPES.find((type) => type.key === 'dora')!;
const YEAR = { from: '2025-11-01', to: '2026-10-31', interval: 'month' };

let t: TestApp;
let base: string;
let browser: Browser;
let opened: WatchedPage | undefined;

describeBrowser('the dashboards page in chromium', () => {
  beforeAll(async () => {
    assertBrowser();
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000' });
    base = await t.listen();
    browser = await launchChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
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

  async function signedIn(userId: string, options: Parameters<typeof watchedPage>[1] = {}) {
    opened = await watchedPage(browser, options);
    await signInThroughLink(opened.page, base, userId);
    return opened.page;
  }

  /** The Metrics API's answer, with a token of the same person. */
  async function api(metric: string, query: Record<string, string>, email: string) {
    const res = await t.get(`/v1/metrics/${metric}?${new URLSearchParams(query)}`, await t.token({ user: email }));
    expect(res.status).toBe(200);
    return res.body.data;
  }

  test("a manager makes a DORA view of Acme and opens it for a year by month: every number drawn is the API's", async () => {
    const page = await signedIn(DEMO.users.grace, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/dashboards/`);
    const form = page.getByRole('region', { name: 'New dashboard' });
    await form.getByLabel('Organization').selectOption({ label: 'Acme Corp' });
    await form.getByLabel('Type').selectOption({ label: 'DORA metrics' });
    // Money is for admins: Grace manages, so the financial types are not offered.
    expect(await form.getByLabel('Type').locator('option', { hasText: 'Engineering cost' }).count()).toBe(0);
    await form.getByLabel('Name').fill('Acme delivery');
    await form.getByLabel('Who sees it').selectOption({ label: 'The whole organization' });
    await form.getByRole('button', { name: 'Make dashboard' }).click();
    await page.waitForURL(/\/dashboards\/view_\w+$/);
    await page.getByRole('heading', { level: 1, name: 'Acme delivery' }).waitFor();

    const query = page.getByRole('form', { name: 'What the dashboard shows' });
    await query.getByLabel('Scope').selectOption({ label: 'Acme Corp' });
    await query.getByLabel('From').fill(YEAR.from);
    await query.getByLabel('To').fill(YEAR.to);
    await query.getByLabel('Interval').selectOption({ label: 'By month' });
    await query.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`**?organization_id=${DEMO.orgs.acme}&from=${YEAR.from}&to=${YEAR.to}&interval=month`);
    await page.getByText(`Figures from ${YEAR.from} to ${YEAR.to}, by month.`).waitFor();

    const dora = await api('dora', { organization_id: DEMO.orgs.acme, ...YEAR }, DEMO.emails.grace);
    const panel = (title: string) => page.getByRole('region', { name: title, exact: true });
    expect(await panel('Deployments a day').locator('.panel-number').getAttribute('data-value')).toBe(String(dora.deployment_frequency.per_day));
    expect(await panel('Deployments a day').getByText(`DORA band: ${dora.deployment_frequency.band}`).count()).toBe(1);
    expect(await panel('Lead time for changes').locator('.panel-number').getAttribute('data-value')).toBe(String(dora.lead_time_for_changes.median_hours));
    expect(await panel('Change failure rate').locator('.panel-number').getAttribute('data-value')).toBe(String(dora.change_failure_rate.rate));

    // The stacked deployments: the chart's own data and its table, bucket by bucket.
    await page.waitForFunction(() => Boolean(document.querySelector('section[aria-label="Deployments"] canvas')?.chart));
    const drawn = await page.evaluate(() => document.querySelector('section[aria-label="Deployments"] canvas')!.chart!.data);
    const months = dora.series.map((b: { start: string }) => b.start);
    expect(months).toHaveLength(12);
    expect(drawn.labels).toEqual(months);
    expect(drawn.datasets.map((d) => [d.label, d.data])).toEqual([
      ['Successful', dora.series.map((b: { deployments: number }) => b.deployments)],
      ['Failed', dora.series.map((b: { failed: number }) => b.failed)],
    ]);
    const cells = await Promise.all(
      (await panel('Deployments').locator('tbody tr').all()).map(async (row) => [
        await row.locator('td').first().textContent(),
        ...(await Promise.all((await row.locator('span[data-value]').all()).map(async (cell) => Number(await cell.getAttribute('data-value'))))),
      ]),
    );
    expect(cells).toEqual(dora.series.map((b: { start: string; deployments: number; failed: number }) => [b.start, b.deployments, b.failed]));
    // Every other chart of the view, as the catalog declares it: its lines are the series' figures it names.
    for (const chart of DORA_TYPE.panels.filter((p) => 'series' in p && p.title !== 'Deployments')) {
      if (!('series' in chart)) continue;
      const selector = `section[aria-label="${chart.title}"] canvas`;
      await page.waitForFunction((s) => Boolean(document.querySelector(s)?.chart), selector);
      const data = await page.evaluate((s) => document.querySelector(s)!.chart!.data, selector);
      expect(data.datasets.map((d) => [d.label, d.data])).toEqual(chart.series.map((line) => [line.label, dora.series.map((b: Record<string, unknown>) => b[line.figure] ?? null)]));
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboards-dora-1280x800.png'), fullPage: true });

    // Her team's figures: the same view, the scope changed to the team she manages.
    await query.getByLabel('Scope').selectOption({ label: 'Team Platform' });
    await query.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`**?team_id=${DEMO.teams.platform}&from=${YEAR.from}&to=${YEAR.to}&interval=month`);
    const team = await api('dora', { team_id: DEMO.teams.platform, ...YEAR }, DEMO.emails.grace);
    await page.waitForFunction((perDay) => document.querySelector('section[aria-label="Deployments a day"] .panel-number')?.getAttribute('data-value') === perDay, String(team.deployment_frequency.per_day));
    expect(await panel('Lead time for changes').locator('.panel-number').getAttribute('data-value')).toBe(String(team.lead_time_for_changes.median_hours));
    await page.goBack();
    await page.waitForURL(`**?organization_id=${DEMO.orgs.acme}&from=${YEAR.from}&to=${YEAR.to}&interval=month`);

    // The address is the state: opened afresh (a shared link), it shows the same.
    const address = page.url();
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await opened!.context.storageState() });
    const small = await phone.newPage();
    await small.goto(address);
    await small.getByText(`Figures from ${YEAR.from} to ${YEAR.to}, by month.`).waitFor();
    expect(await small.getByRole('region', { name: 'Deployments a day', exact: true }).locator('.panel-number').getAttribute('data-value')).toBe(String(dora.deployment_frequency.per_day));
    await small.screenshot({ path: path.join(ARTIFACTS, 'dashboards-dora-390x844.png'), fullPage: true });
    await phone.close();
  });

  test('what one may not see: money for admins, a team one cannot read, a private view of another; the page says why', async () => {
    const views = t.runtime.writers.dashboardViews;
    const money = await views.create(DEMO.users.ada, { organizationId: DEMO.orgs.acme, type: 'investment', name: 'Where the time goes', visibility: 'organization', teamId: null });
    const hers = await views.create(DEMO.users.ada, { organizationId: DEMO.orgs.acme, type: 'dora', name: 'Ada’s own', visibility: 'private', teamId: null });
    const page = await signedIn(DEMO.users.linus, { expectStatuses: [403, 404] });
    await page.goto(`${base}/dashboards/`);
    const list = page.getByRole('region', { name: 'Your dashboards' });
    await list.getByRole('link', { name: 'Where the time goes' }).waitFor();
    expect(await list.getByRole('link', { name: 'Ada’s own' }).count()).toBe(0);

    await list.getByRole('link', { name: 'Where the time goes' }).click();
    await page.getByRole('alert').filter({ hasText: "Financial metrics are for the organization's admins" }).waitFor();
    expect(await page.getByText("Not available: Financial metrics are for the organization's admins").count()).toBe(4);
    // Not his: nothing to manage.
    expect(await page.getByRole('region', { name: 'Manage this dashboard' }).count()).toBe(0);

    await page.goto(`${base}/dashboards/${money.id}?team_id=${DEMO.teams.globexCore}&from=2026-10-01&to=2026-10-31&interval=week`);
    await page.getByRole('alert').filter({ hasText: 'You do not have permission to access this team' }).waitFor();

    await page.goto(`${base}/dashboards/${hers.id}`);
    await page.getByRole('alert').filter({ hasText: 'You do not have permission to access this dashboard view' }).waitFor();
    await page.goto(`${base}/dashboards/view_nobodys`);
    await page.getByRole('alert').filter({ hasText: 'Dashboard view not found' }).waitFor();
  });

  test('keyboard only: every control of a view is reached in order and works', async () => {
    const view = await t.runtime.writers.dashboardViews.create(DEMO.users.grace, { organizationId: DEMO.orgs.acme, type: 'pull_requests', name: 'Review speed', visibility: 'private', teamId: null });
    const page = await signedIn(DEMO.users.grace);
    await page.goto(`${base}/dashboards/${view.id}?organization_id=${DEMO.orgs.acme}&from=2026-08-01&to=2026-10-31&interval=month`);
    await page.getByText('Figures from 2026-08-01 to 2026-10-31, by month.').waitFor();
    const focusedName = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        if (!el) return '';
        return (el.labels && el.labels.length ? el.labels[0].textContent : el.textContent)?.trim() ?? '';
      });
    const reached: string[] = [];
    // A date field is three stops (month, day, year) and its calendar button in chromium.
    for (let i = 0; i < 20 && !reached.includes('Show'); i++) {
      await page.keyboard.press('Tab');
      reached.push(await focusedName());
    }
    expect(reached).toEqual(expect.arrayContaining(['Scope', 'From', 'To', 'Interval', 'Show']));
    expect(reached.indexOf('Scope')).toBeLessThan(reached.indexOf('Show'));
    // The interval changed from the keyboard, and the form sent with Enter.
    await page.getByLabel('Interval').focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('button', { name: 'Show' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/interval=week$/);
    await page.getByText('Figures from 2026-08-01 to 2026-10-31, by week.').waitFor();
    // A chart's numbers open from the keyboard.
    const numbers = page.getByRole('region', { name: 'Pull requests', exact: true }).getByText('Numbers');
    await numbers.focus();
    await page.keyboard.press('Enter');
    expect(await page.getByRole('region', { name: 'Pull requests', exact: true }).getByRole('table').isVisible()).toBe(true);
  });
});
