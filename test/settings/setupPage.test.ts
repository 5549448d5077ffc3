import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, signInThroughLink, watchedPage, WatchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { createLoginLink } from '../../src/auth/signIn';

/**
 * The settings page's Setup section (docs/settings.md#setup) in Debian's chromium: an admin reads each source's state
 * in words, its last delivery and its last refusal with the reason, and the next step, and checks again, by keyboard
 * alone; links the busiest of a source's accounts with no member to its member by e-mail, by keyboard too; a manager
 * has no such section, and the procedure refuses them.
 */

const describeBrowser = describeInBrowser('setupPage');

// What page.evaluate touches in the page (the project compiles without the DOM library).
interface Focused {
  textContent: string | null;
  labels?: ArrayLike<{ textContent: string | null }> | null;
}
declare const document: { activeElement: Focused | null };

const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts');

let t: TestApp;
let base: string;
let browser: Browser;
let opened: WatchedPage | undefined;

describeBrowser('the setup section in chromium', () => {
  beforeAll(async () => {
    assertBrowser();
    // Each load of the page reads every section of an admin's organization (one point each).
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

  test('by keyboard alone: a source waiting, one receiving and one failing, each with its reason; checked again after a bad delivery', async () => {
    const waiting = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'Setup waiting');
    const receiving = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'Setup receiving');
    const failing = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'Setup failing');
    const push = githubExamples('push')[0];
    expect((await deliverToGithub(t, receiving.gitApp.id, receiving.secret, { event: 'push', payload: push })).status).toBe(200);
    const badSignature = { event: 'push', payload: push, signature: `sha256=${'0'.repeat(64)}` };
    expect((await deliverToGithub(t, failing.gitApp.id, failing.secret, badSignature)).status).toBe(401);

    const page = await open();
    const { token: link } = await createLoginLink(DEMO.users.ada);
    await page.goto(`${base}/auth/link#${link}`);
    await tabTo(page, 'Sign in');
    const [answer] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), page.keyboard.press('Enter')]);
    expect(answer.status()).toBe(303);
    await page.waitForURL(`${base}/settings/`);

    const setup = page.getByRole('region', { name: 'Acme Corp' }).getByRole('region', { name: 'Setup' });
    const sources = setup.getByRole('table', { name: 'Sources of Acme Corp' });
    await sources.waitFor();
    const cells = async (name: string) => (await sources.getByRole('row', { name: new RegExp(name) }).getByRole('cell').allInnerTexts()).map((c) => c.replace(/\s+/g, ' ').trim());
    const headers = (await sources.getByRole('columnheader').allInnerTexts()).map((c) => c.trim());
    expect(headers).toEqual(['Source', 'State', 'Last delivery', 'Last refusal', 'Accounts without a member', 'History', 'Next step']);

    expect(await cells('Setup waiting')).toEqual([
      'Setup waiting GitHub git app',
      'Waiting for its first delivery',
      'None yet',
      'None',
      '0',
      'No credential',
      expect.stringContaining('Paste the webhook URL and secret into GitHub’s webhook settings'),
    ]);
    const received = await cells('Setup receiving');
    expect(received.slice(1, 4)).toEqual(['Receiving', expect.stringMatching(/\(push\)$/), 'None']);
    const refused = await cells('Setup failing');
    expect(refused.slice(1, 4)).toEqual(['Failing', 'None yet', expect.stringMatching(/: signature does not match the secret$/)]);
    expect(refused[6]).toContain(`npm run gitapps -- rotate-secret ${failing.gitApp.id}`);
    await setup.getByText(/\d+ receiving, \d+ waiting, \d+ failing, \d+ quiet\./).waitFor();
    await setup.screenshot({ path: path.join(ARTIFACTS, 'settings-setup.png') });
    // Not one of the secrets, nor what the refused delivery carried, reached the page.
    const text = await setup.innerText();
    for (const secret of [waiting.secret, receiving.secret, failing.secret, badSignature.signature]) expect(text).not.toContain(secret);

    // The secret at GitHub changed: the next delivery is refused, and "Check again" shows it, by keyboard.
    expect((await deliverToGithub(t, receiving.gitApp.id, receiving.secret, badSignature)).status).toBe(401);
    await tabTo(page, 'Check again the setup of Acme Corp');
    await page.keyboard.press('Enter');
    await sources.getByRole('row', { name: /Setup receiving/ }).getByRole('cell', { name: /signature does not match the secret/ }).waitFor();
    expect((await cells('Setup receiving')).slice(1, 2)).toEqual(['Failing']);
    expect(await focusedName(page)).toBe('Check again the setup of Acme Corp');
  });

  test('by keyboard alone: People to link lists a git app’s accounts busiest first; the busiest linked by e-mail goes, and the count drops', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'Setup people');
    const pushExample = githubExamples('push').find((p) => p.commits.length === 1)!;
    // Commits as GitHub sends them, by logins and addresses no member has.
    for (const [n, login] of ['octo-busy', 'octo-quiet', 'octo-busy'].entries()) {
      const payload = copy(pushExample);
      const commit = { ...payload.commits[0], id: `${n}`.padStart(40, 'b'), timestamp: `2026-05-0${n + 1}T10:00:00Z`, author: { name: login, email: `${login}@home.example`, username: login } };
      payload.commits = [commit];
      payload.head_commit = commit;
      expect((await deliverToGithub(t, gitApp.id, secret, { event: 'push', payload })).status).toBe(200);
    }

    const page = await open();
    await signInThroughLink(page, base, DEMO.users.ada);
    const setup = page.getByRole('region', { name: 'Acme Corp' }).getByRole('region', { name: 'Setup', exact: true });
    await setup.getByRole('table', { name: 'Sources of Acme Corp' }).getByRole('row', { name: /Setup people/ }).waitFor();
    await tabTo(page, 'People to link (2) from Setup people');
    expect(await page.getByRole('button', { name: 'People to link (2) from Setup people' }).getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');

    const people = setup.getByRole('table', { name: 'People to link from Setup people' });
    await people.waitFor();
    expect(await focusedName(page)).toBe('People to link from Setup people');
    expect(await page.getByRole('button', { name: 'People to link (2) from Setup people' }).getAttribute('aria-expanded')).toBe('true');
    expect((await people.getByRole('columnheader').allInnerTexts()).map((c) => c.trim())).toEqual(['Account', 'Activity', 'Last seen', 'Member']);
    const rows = async () => (await people.locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    expect(await rows()).toEqual([expect.stringMatching(/^octo-busy 2 commits /), expect.stringMatching(/^octo-quiet 1 commit /)]);
    await setup.screenshot({ path: path.join(ARTIFACTS, 'settings-people-to-link.png') });

    await tabTo(page, 'Member e-mail for octo-busy');
    await page.keyboard.type(DEMO.emails.linus);
    await tabTo(page, 'Link octo-busy');
    await page.keyboard.press('Enter');
    await setup.getByRole('status').filter({ hasText: `Linked octo-busy to ${DEMO.emails.linus}` }).waitFor();
    expect(await rows()).toEqual([expect.stringMatching(/^octo-quiet 1 commit /)]);
    // Focus goes on to the next account's field, and the sources table counts one account fewer.
    expect(await focusedName(page)).toBe('Member e-mail for octo-quiet');
    await page.getByRole('button', { name: 'People to link (1) from Setup people' }).waitFor();

    await tabTo(page, 'Close people to link');
    await page.keyboard.press('Enter');
    expect(await people.count()).toBe(0);
    expect(await focusedName(page)).toBe('People to link (1) from Setup people');
  });

  test('a manager has no Setup section, and the procedure refuses them', async () => {
    const page = await open([403]);
    await signInThroughLink(page, base, DEMO.users.grace);
    await page.getByText('Your organizations: Acme Corp (manager).').waitFor();
    expect(await page.getByRole('region', { name: 'Setup' }).count()).toBe(0);
    expect(await page.getByRole('table', { name: 'Sources of Acme Corp' }).count()).toBe(0);
    const status = await page.evaluate(async (input) => (await fetch(`/trpc/settings.setup?input=${encodeURIComponent(input)}`, { credentials: 'same-origin' })).status, JSON.stringify({ organization_id: DEMO.orgs.acme }));
    expect(status).toBe(403);
  });
});

async function open(expectStatuses: number[] = []): Promise<Page> {
  opened = await watchedPage(browser, { expectStatuses });
  return opened.page;
}

/** The focused element's name as a person hears it: a field's label, a button's or a heading's text. */
function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el) return '';
    const text = el.labels && el.labels.length ? el.labels[0].textContent : el.textContent;
    return (text ?? '').replace(/\s+/g, ' ').trim();
  });
}

/** Presses Tab until the element named `name` has focus, as someone without a mouse does. */
async function tabTo(page: Page, name: string, maxPresses = 200): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const focused = await focusedName(page);
    if (focused === name) return;
    seen.push(focused);
  }
  throw new Error(`"${name}" not reached by Tab; focus went through: ${seen.join(' | ')}`);
}
