import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';

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
declare const document: { querySelector(selector: string): DrawnCanvas | null };

const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts');
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
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboards-dora-1280x800.png'), fullPage: true });

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
});
