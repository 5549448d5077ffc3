import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM } from './chromium';
import { createLoginLink } from '../../../src/auth/signIn';

/** Chromium, headless, on the closed network (no background connections of its own). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/** A page whose console errors, script errors and failed requests are kept: a page of the service must have none. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  problems: string[];
}

/** 401 is always expected: the signed-out view. `expectStatuses`: answers a test causes on purpose, which chromium logs as errors. */
export async function watchedPage(
  browser: Browser,
  options: { expectStatuses?: number[]; viewport?: { width: number; height: number }; permissions?: string[] } = {},
): Promise<WatchedPage> {
  const expected = new Set([401, ...(options.expectStatuses ?? [])]);
  const problems: string[] = [];
  const context = await browser.newContext({ ...(options.viewport ? { viewport: options.viewport } : {}), ...(options.permissions ? { permissions: options.permissions } : {}) });
  // The sign-in pages name no icon, so chromium asks for /favicon.ico; its 404 is not the page's fault.
  await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  const page = await context.newPage();
  page.on('console', (msg) => {
    const status = /the server responded with a status of (\d+)/.exec(msg.text());
    if (msg.type() !== 'error' || (status && expected.has(Number(status[1])))) return;
    // helmet's Cross-Origin-Opener-Policy means nothing on plain HTTP, and chromium says so on each page.
    if (msg.text().startsWith('The Cross-Origin-Opener-Policy header has been ignored')) return;
    problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    // Sign-out's redirect is not followed (redirect: 'manual'): chromium reports it as aborted.
    if (new URL(req.url()).pathname === '/auth/logout' && req.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
  });
  return { page, context, problems };
}

/** The real flow: `npm run tokens -- login-link` prints /auth/link#<token>; its page's "Sign in" lands on the settings. */
export async function signInThroughLink(page: Page, base: string, userId: string): Promise<void> {
  const { token } = await createLoginLink(userId);
  await page.goto(`${base}/auth/link#${token}`);
  const [answer] = await Promise.all([
    page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/auth/link'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  if (answer.status() !== 303) throw new Error(`the sign-in link was refused: ${answer.status()} ${await page.locator('main').innerText()}`);
  await page.waitForURL(`${base}/settings/`);
  // Its calls answered before anything else is opened: leaving earlier would abort them.
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.waitForLoadState('networkidle');
}
