import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertBrowser, describeInBrowser } from '../support/peers/chromium';
import { launchChromium, watchedPage } from '../support/peers/pageBrowser';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { eventually, Receiver, verify } from '../support/peers/receiver';
import { createLoginLink } from '../../src/auth/signIn';
import { GitApp, WebhookAttempt, WebhookEndpoint } from '../../db/models';
import { commentCreated, linearDelivery } from '../support/peers/linear/webhooks';

/**
 * The settings page (/settings/, docs/settings.md) in Debian's chromium, as a person uses it: signed in with a one-time
 * link, found by roles and labels (so the accessible names are checked too), by mouse and by keyboard alone, and
 * what it made checked from outside the page (the REST API, a webhook receiver, SCIM).
 */

const describeBrowser = describeInBrowser('settingsPage');

// The functions given to page.evaluate run in the page. The project compiles without the DOM library, so the little
// they touch is declared here, for this file only.
interface PageElement {
  textContent: string | null;
  type?: string;
  value?: string;
  labels?: ArrayLike<PageElement>;
  selectionStart?: number | null;
  selectionEnd?: number | null;
}
declare const document: { activeElement: PageElement | null; documentElement: { outerHTML: string }; querySelectorAll(selector: string): ArrayLike<PageElement> };
declare const window: { location: { href: string }; isSecureContext: boolean };
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const localStorage: { length: number };
declare const sessionStorage: { length: number };

const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts');

let t: TestApp;
let base: string;
let browser: Browser;
let receiver: Receiver;
let context: BrowserContext | undefined;
let problems: string[] = [];

describeBrowser('the settings page in chromium', () => {
  beforeAll(async () => {
    assertBrowser();
    // PUBLIC_URL stays the default: the page's changes come from the origin the browser used, which is accepted too.
    // Each load of the page reads every section of an admin's organization (one point each), and ada signs in to it
    // many times within a minute here: more than the API's 100 a minute per user that a person would spend.
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_MINUTE: '1000' });
    base = await t.listen();
    receiver = await Receiver.start();
    t.runtime.webhooks.start();
    browser = await launchChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  // The server is closed by t.close(), which stops the delivery worker too.
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    // A CSP violation, a script error or a failed request is a console error: the page must have none.
    expect(problems).toEqual([]);
  });

  test('signed out: a link to sign in, and how an operator makes a one-time link', async () => {
    const page = await openPage();
    await page.goto(`${base}/settings/`);
    const signIn = page.getByRole('link', { name: 'Sign in' });
    await signIn.waitFor();
    expect(await signIn.getAttribute('href')).toBe('/auth/login?return_to=/settings/');
    await page.getByText('npm run tokens -- login-link --user <email>').waitFor();
    expect(await page.getByRole('region', { name: 'API tokens' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-signed-out.png'), fullPage: true });

    // No identity provider in the tests: the sign-in page says how to get a link, in the settings' style.
    await signIn.click();
    await page.getByRole('heading', { name: 'Sign in with a link' }).waitFor();
    expect(await page.locator('link[rel="stylesheet"]').getAttribute('href')).toBe('/settings/settings.css');
  });

  test('ada generates a token: shown once, works on the REST API, gone after a reload, revoked in the page', async () => {
    const page = await openPage({ clipboard: true });
    await signInWithLink(page, DEMO.users.ada);
    await page.getByText(`(${DEMO.emails.ada})`).waitFor();
    await page.getByRole('region', { name: 'Acme Corp' }).getByRole('region', { name: 'Telemetry (OTLP tokens)' }).getByRole('button', { name: 'Create OTLP token' }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-signed-in.png'), fullPage: true });

    const tokens = page.getByRole('region', { name: 'API tokens' });
    await tokens.getByLabel('Name').fill('browser token');
    await tokens.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    await tokens.getByRole('checkbox', { name: 'Acme Corp' }).check();
    await tokens.getByRole('button', { name: 'Generate token' }).click();

    const shown = tokens.getByLabel('New API token', { exact: true });
    const token = await shown.inputValue();
    expect(token).toMatch(/^plat_[0-9A-Za-z]+$/);
    expect(await shown.getAttribute('readonly')).not.toBeNull();
    await tokens.getByText('Copy it now: it will not be shown again.').waitFor();
    await tokens.getByRole('button', { name: 'Copy new API token' }).click();
    await tokens.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const row = tokens.getByRole('row', { name: /browser token/ });
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells.slice(0, 3)).toEqual([expect.stringContaining('Only: Acme Corp'), `${token.slice(0, 9)}…${token.slice(-4)}`, 'active']);
    expect(cells[4]).toBe('Not yet');
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-token-created.png'), fullPage: true });

    expect((await t.get(`/v1/users/${DEMO.users.ada}`, token)).status).toBe(200);

    await tokens.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await holds(page, token)).toBe(false);
    await page.reload();
    await row.waitFor();
    expect(await holds(page, token)).toBe(false);

    await row.getByRole('button', { name: 'Revoke browser token', exact: true }).click();
    // The first press only asks.
    expect(await row.getByRole('cell', { name: 'active' }).count()).toBe(1);
    await row.getByRole('button', { name: 'Confirm revoke browser token' }).click();
    await tokens.getByRole('status').filter({ hasText: 'Revoked “browser token”' }).waitFor();
    expect(await row.getByRole('cell', { name: 'revoked' }).count()).toBe(1);
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await statusWithin(() => t.get(`/v1/users/${DEMO.users.ada}`, token), 401)).toBe(401);
  });

  test('ada adds a webhook: the secret once, a signed delivery in Deliveries, a replay with the same webhook-id', async () => {
    const page = await openPage();
    await signInWithLink(page, DEMO.users.ada);
    const webhooks = page.getByRole('region', { name: 'Acme Corp' }).getByRole('region', { name: 'Webhooks' });
    const hookPath = `/page-${randomBytes(4).toString('hex')}`;
    const url = receiver.url(hookPath);

    await webhooks.getByLabel('Endpoint URL').fill(url);
    await webhooks.getByRole('checkbox', { name: 'team.created' }).check();
    await webhooks.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await webhooks.getByLabel('Signing secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    const row = webhooks.getByRole('row', { name: new RegExp(escapeRegExp(url)) });
    expect(await row.getByRole('cell').allInnerTexts()).toEqual([url, 'team.created', 'active', expect.stringContaining('Deliveries')]);
    await webhooks.getByRole('button', { name: 'Done' }).click();
    expect(await holds(page, secret)).toBe(false);

    const endpoint = (await WebhookEndpoint.findOne({ where: { url } }))!;
    await t.runtime.writers.teams.create(DEMO.orgs.acme, { name: `Page team ${randomBytes(3).toString('hex')}`, externalId: null });
    await eventually('the delivery', () => receiver.at(hookPath).length === 1);
    const first = receiver.at(hookPath)[0];
    expect(verify(secret, first)).toMatchObject({ type: 'team.created' });
    const attemptsRecorded = () => WebhookAttempt.count({ where: { endpoint_id: endpoint.id } });
    await eventually('its attempt recorded', async () => (await attemptsRecorded()) === 1);

    await row.getByRole('button', { name: `Deliveries to ${url}` }).click();
    const deliveries = webhooks.getByRole('region', { name: `Deliveries to ${url}` });
    const attempts = deliveries.getByRole('row', { name: /team\.created/ });
    await attempts.first().waitFor();
    expect(await attempts.count()).toBe(1);
    expect(await attempts.first().getByRole('cell').allInnerTexts()).toEqual([
      expect.any(String),
      'team.created',
      'HTTP 200',
      expect.stringMatching(/^\d+ ms$/),
      'succeeded',
      expect.stringMatching(/^Replay/),
    ]);

    await deliveries.getByRole('button', { name: /^Replay team\.created/ }).click();
    await deliveries.getByRole('status').filter({ hasText: 'Replay of the team.created event queued' }).waitFor();
    await eventually('the replay', () => receiver.at(hookPath).length === 2);
    const again = receiver.at(hookPath)[1];
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verify(secret, again)).toEqual(verify(secret, first));
    await eventually('the replay recorded', async () => (await attemptsRecorded()) === 2);
    await deliveries.getByRole('button', { name: 'Refresh deliveries' }).click();
    await eventually('two rows', async () => (await attempts.count()) === 2);
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-webhook-deliveries.png'), fullPage: true });

    // Disable and enable, then a new secret, shown once; the next delivery verifies with it.
    await row.getByRole('button', { name: `Disable ${url}` }).click();
    await row.getByRole('cell', { name: /^disabled/ }).waitFor();
    await row.getByRole('button', { name: `Enable ${url}` }).click();
    await row.getByRole('cell', { name: 'active' }).waitFor();
    await row.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await webhooks.getByRole('heading', { name: `New signing secret for ${url}` }).waitFor();
    const rotated = await webhooks.getByLabel('Signing secret', { exact: true }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await t.runtime.writers.teams.create(DEMO.orgs.acme, { name: `Page team ${randomBytes(3).toString('hex')}`, externalId: null });
    await eventually('the third delivery', () => receiver.at(hookPath).length === 3);
    expect(verify(rotated, receiver.at(hookPath)[2])).toMatchObject({ type: 'team.created' });
  });

  test('by keyboard alone: sign in, generate a token, dismiss it, revoke it after a confirmation that Escape cancels', async () => {
    const page = await openPage();
    const { token: link } = await createLoginLink(DEMO.users.ada);
    await page.goto(`${base}/auth/link#${link}`);
    await tabTo(page, 'Sign in');
    const [answer] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), page.keyboard.press('Enter')]);
    expect(answer.status()).toBe(303);
    await page.waitForURL(`${base}/settings/`);
    const tokens = page.getByRole('region', { name: 'API tokens' });
    await tokens.getByRole('button', { name: 'Generate token' }).waitFor();

    await tabTo(page, 'Name');
    await page.keyboard.type('keyboard token');
    await tabTo(page, 'Expires');
    await page.keyboard.press('ArrowDown');
    expect(await tokens.getByLabel('Expires').inputValue()).toBe('365');
    await tabTo(page, 'Acme Corp');
    await page.keyboard.press('Space');
    expect(await tokens.getByRole('checkbox', { name: 'Acme Corp' }).isChecked()).toBe(true);
    await tabTo(page, 'Generate token');
    await page.keyboard.press('Space');

    const shown = tokens.getByLabel('New API token', { exact: true });
    expect(await shown.inputValue()).toMatch(/^plat_/);
    // Focus went to what appeared, so a screen reader reads it next.
    expect(await focusedName(page)).toBe('Your new token “keyboard token”');
    await tabTo(page, 'Done');
    await page.keyboard.press('Enter');
    await shown.waitFor({ state: 'detached' });
    expect(await focusedName(page)).toBe('API tokens');

    await tabTo(page, 'Revoke keyboard token');
    await page.keyboard.press('Enter');
    expect(await focusedName(page)).toBe('Confirm revoke keyboard token');
    await page.keyboard.press('Escape');
    expect(await focusedName(page)).toBe('Revoke keyboard token');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const row = tokens.getByRole('row', { name: /keyboard token/ });
    await row.getByRole('cell', { name: 'revoked' }).waitFor();
  });

  test('git apps, SCIM and telemetry tokens: each made with its secret once, the SCIM token works until revoked', async () => {
    const page = await openPage({ clipboard: true, expectStatuses: [400] });
    await signInWithLink(page, DEMO.users.ada);
    const acme = page.getByRole('region', { name: 'Acme Corp' });

    const gitApps = acme.getByRole('region', { name: 'Git apps' });
    await gitApps.getByLabel('Provider').selectOption({ label: 'GitLab' });
    await gitApps.getByLabel('Name').fill('GitLab from the page');
    await gitApps.getByRole('button', { name: 'Add git app' }).click();
    expect(await gitApps.getByLabel('Webhook URL', { exact: true }).inputValue()).toMatch(/\/ingest\/gitlab\/gapp_\w+$/);
    const gitSecret = await gitApps.getByLabel('Webhook secret', { exact: true }).inputValue();
    expect(gitSecret.length).toBeGreaterThan(20);
    await gitApps.getByText('Merge request events').waitFor();
    const gitRow = gitApps.getByRole('row', { name: /GitLab from the page/ });
    expect((await gitRow.getByRole('cell').allInnerTexts()).slice(0, 4)).toEqual(['GitLab from the page', 'GitLab', expect.stringMatching(/\/ingest\/gitlab\//), 'Set']);
    await gitApps.getByRole('button', { name: 'Done' }).click();
    expect(await holds(page, gitSecret)).toBe(false);
    await gitRow.getByRole('button', { name: 'Rotate secret of GitLab from the page' }).click();
    await gitApps.getByRole('heading', { name: 'New webhook secret for GitLab from the page' }).waitFor();
    const rotated = await gitApps.getByLabel('Webhook secret', { exact: true }).inputValue();
    expect(rotated).not.toBe(gitSecret);
    await gitApps.getByRole('button', { name: 'Done' }).click();
    expect(await holds(page, rotated)).toBe(false);
    // The secret it replaced, if it leaked, is refused at once rather than at the end of its 24 hours.
    await gitRow.getByText(/The previous one is accepted until/).waitFor();
    await gitRow.getByRole('button', { name: 'Refuse previous secret of GitLab from the page' }).click();
    await gitRow.getByRole('button', { name: 'Confirm refuse previous secret of GitLab from the page' }).click();
    await gitApps.getByRole('status').filter({ hasText: 'The previous secret of GitLab from the page is refused from now on' }).waitFor();
    expect(await gitRow.getByRole('button', { name: /Refuse previous secret/ }).count()).toBe(0);
    expect((await gitRow.getByRole('cell').allInnerTexts())[3]).toBe('Set');

    // Bitbucket Cloud: the URL, the secret, and where in Bitbucket to paste them.
    await gitApps.getByLabel('Provider').selectOption({ label: 'Bitbucket' });
    await gitApps.getByLabel('Name').fill('Bitbucket from the page');
    await gitApps.getByRole('button', { name: 'Add git app' }).click();
    expect(await gitApps.getByLabel('Webhook URL', { exact: true }).inputValue()).toMatch(/\/ingest\/bitbucket\/gapp_\w+$/);
    await gitApps.getByText(/Workspace settings → Webhooks, for all its repositories\): Secret as above; Triggers: Repository Push, Updated; Pull Request Created/).waitFor();
    const bitbucketRow = gitApps.getByRole('row', { name: /Bitbucket from the page/ });
    expect((await bitbucketRow.getByRole('cell').allInnerTexts()).slice(0, 4)).toEqual(['Bitbucket from the page', 'Bitbucket', expect.stringMatching(/\/ingest\/bitbucket\//), 'Set']);
    await gitApps.getByRole('button', { name: 'Done' }).click();

    const scim = acme.getByRole('region', { name: 'SCIM tokens' });
    await scim.getByLabel('Name').fill('Okta from the page');
    await scim.getByRole('button', { name: 'Create SCIM token' }).click();
    const scimToken = await scim.getByLabel('SCIM token', { exact: true }).inputValue();
    expect(scimToken).toMatch(/^scim_/);
    expect(await scim.getByLabel('SCIM base URL', { exact: true }).inputValue()).toMatch(/\/scim\/v2$/);
    const scimUsers = () => request(t.runtime.app).get('/scim/v2/Users?count=1').set('Authorization', `Bearer ${scimToken}`);
    expect((await scimUsers()).status).toBe(200);
    await scim.getByRole('button', { name: 'Done' }).click();
    const scimRow = scim.getByRole('row', { name: /Okta from the page/ });
    await scimRow.getByRole('button', { name: 'Revoke Okta from the page', exact: true }).click();
    await scimRow.getByRole('button', { name: 'Confirm revoke Okta from the page' }).click();
    await scimRow.getByRole('cell', { name: 'revoked' }).waitFor();
    expect(await statusWithin(scimUsers, 401)).toBe(401);

    const telemetry = acme.getByRole('region', { name: 'Telemetry (OTLP tokens)' });
    await telemetry.getByLabel('Name').fill('Claude Code from the page');
    await telemetry.getByRole('button', { name: 'Create OTLP token' }).click();
    const otlpToken = await telemetry.getByLabel('OTLP token', { exact: true }).inputValue();
    expect(otlpToken).toMatch(/^otlp_/);
    const settings = telemetry.getByRole('figure', { name: 'Managed settings' });
    const json = await settings.locator('pre').innerText();
    expect(JSON.parse(json).env.OTEL_EXPORTER_OTLP_HEADERS).toBe(`Authorization=Bearer ${otlpToken}`);
    await telemetry.getByRole('button', { name: 'Copy managed settings' }).click();
    await telemetry.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(JSON.parse(json));
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-organization.png'), fullPage: true });

    // A refresh of the section (here, revoking) takes the secret off the page.
    const otlpRow = telemetry.getByRole('row', { name: /Claude Code from the page/ });
    await otlpRow.getByRole('button', { name: 'Revoke Claude Code from the page', exact: true }).click();
    await otlpRow.getByRole('button', { name: 'Confirm revoke Claude Code from the page' }).click();
    await otlpRow.getByRole('cell', { name: 'revoked' }).waitFor();
    expect(await holds(page, otlpToken)).toBe(false);

    // A server's refusal is said next to the form.
    await scim.getByRole('button', { name: 'Create SCIM token' }).click();
    await scim.getByRole('alert').filter({ hasText: 'name' }).waitFor();

    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings-narrow.png'), fullPage: true });
  });

  test('apps: added with the webhook URL and secret once, a board mapped to a team, a status counted as paused, disabled', async () => {
    // margaret, Globex's admin, in her organization.
    const page = await openPage();
    await signInWithLink(page, DEMO.users.margaret);
    const apps = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Apps', exact: true });
    await apps.getByLabel('Provider').selectOption({ label: 'Jira' });
    await apps.getByLabel('Name').fill('Jira from the page');
    await apps.getByLabel('Story points field').fill('customfield_10016');
    await apps.getByRole('button', { name: 'Add app' }).click();
    expect(await apps.getByLabel('Webhook URL', { exact: true }).inputValue()).toMatch(/\/ingest\/jira\/app_\w+$/);
    const secret = await apps.getByLabel('Webhook secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^[\w-]{43}$/);
    const row = apps.getByRole('row', { name: /Jira from the page/ });
    expect((await row.getByRole('cell').allInnerTexts()).slice(0, 5)).toEqual(['Jira from the page', 'Jira', expect.stringMatching(/\/ingest\/jira\//), 'Set', 'active']);
    await apps.getByRole('button', { name: 'Done' }).click();
    expect(await holds(page, secret)).toBe(false);

    await row.getByRole('button', { name: 'Mappings of Jira from the page' }).click();
    const mappings = apps.getByRole('region', { name: 'Mappings of Jira from the page' });
    await mappings.getByText('No boards mapped').waitFor();
    await mappings.getByLabel('Board').fill('CORE');
    await mappings.getByLabel('Team').selectOption({ label: 'Core' });
    await mappings.getByRole('button', { name: 'Map board' }).click();
    await mappings.getByRole('status').filter({ hasText: 'Mapped CORE to Core' }).waitFor();
    await mappings.getByRole('row', { name: /CORE/ }).getByRole('cell', { name: 'Team Core' }).waitFor();
    await mappings.getByLabel('Status', { exact: true }).fill('Blocked');
    await mappings.getByLabel('Counted as').selectOption({ label: 'Paused' });
    await mappings.getByRole('button', { name: 'Map status' }).click();
    await mappings.getByRole('row', { name: /blocked/ }).getByRole('cell', { name: 'Paused' }).waitFor();

    await row.getByRole('button', { name: 'Disable Jira from the page' }).click();
    await row.getByRole('cell', { name: 'disabled' }).waitFor();
    const listed = await t.get(`/v1/organizations/${DEMO.orgs.globex}/apps?per_page=100`, await t.token({ user: DEMO.emails.margaret }));
    expect(listed.body.data).toContainEqual(expect.objectContaining({ name: 'Jira from the page', provider: 'jira', category: 'issues', is_active: false }));
  });

  test('apps: the secret Linear made, stored from the page in place of ours; Linear’s deliveries are verified with it', async () => {
    const page = await openPage();
    await signInWithLink(page, DEMO.users.margaret);
    const apps = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Apps', exact: true });
    await apps.getByLabel('Provider').selectOption({ label: 'Linear' });
    await apps.getByLabel('Name').fill('Linear from the page');
    await apps.getByRole('button', { name: 'Add app' }).click();
    const url = await apps.getByLabel('Webhook URL', { exact: true }).inputValue();
    const appId = /\/ingest\/linear\/(app_\w+)$/.exec(url)![1];
    const ours = await apps.getByLabel('Webhook secret', { exact: true }).inputValue();
    await apps.getByRole('button', { name: 'Done' }).click();

    const linearMade = `lin_wh_${randomBytes(24).toString('hex')}`;
    const row = apps.getByRole('row', { name: /Linear from the page/ });
    await row.getByRole('button', { name: 'Use the provider’s secret for Linear from the page' }).click();
    // Focus is in the field, so the secret can be pasted at once.
    expect(await page.evaluate(() => document.activeElement?.type)).toBe('password');
    await apps.getByLabel('Provider’s secret').fill(linearMade);
    await apps.getByRole('button', { name: 'Store secret' }).click();
    await apps.getByRole('status').filter({ hasText: 'Stored the secret Linear made for Linear from the page' }).waitFor();
    expect(await holds(page, linearMade)).toBe(false);

    const deliver = (secret: string) => {
      const d = linearDelivery(commentCreated, secret, { sentAt: new Date() });
      return request(t.runtime.app).post(`/ingest/linear/${appId}`).set(d.headers).send(d.body.toString('utf8'));
    };
    const answer = await deliver(linearMade);
    expect([answer.status, answer.body.data?.result]).toEqual([202, 'ignored']);
    // Ours is accepted for its grace, unless it leaked: then it is refused at once, from the row.
    expect((await deliver(ours)).status).toBe(202);
    await row.getByText(/The previous one is accepted until/).waitFor();
    await row.getByRole('button', { name: 'Refuse previous secret of Linear from the page' }).click();
    await row.getByRole('button', { name: 'Confirm refuse previous secret of Linear from the page' }).click();
    await apps.getByRole('status').filter({ hasText: 'The previous secret of Linear from the page is refused from now on: only the current one is accepted.' }).waitFor();
    expect((await deliver(ours)).status).toBe(401);
    expect((await deliver(linearMade)).status).toBe(202);
  });

  test('apps: a Copilot app added with its credential and GitHub organization, never shown back; its credential replaced', async () => {
    const page = await openPage();
    await signInWithLink(page, DEMO.users.margaret);
    const apps = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Apps', exact: true });
    const token = `github_pat_${randomBytes(30).toString('hex')}`;
    // The fields' hints name the providers that take them, as the service's catalog (settings.providers) says.
    await apps.getByText('GitHub Copilot, Cursor and Claude Code only, and required there: the key or token the vendor issued').waitFor();
    await apps.getByText('GitHub Copilot only: the organization whose usage reports are read').waitFor();
    await apps.getByText('Jira only: the issue field that holds story points.').waitFor();
    await apps.getByLabel('Provider').selectOption({ label: 'GitHub Copilot' });
    await apps.getByLabel('Name').fill('Copilot from the page');
    await apps.getByLabel('Vendor credential').fill(token);
    await apps.getByLabel('GitHub organization').fill('globex-corp');
    await apps.getByRole('button', { name: 'Add app' }).click();
    await apps.getByRole('status').filter({ hasText: 'Added Copilot from the page: the service reads GitHub Copilot’s usage with the credential' }).waitFor();
    const row = apps.getByRole('row', { name: /Copilot from the page/ });
    expect((await row.getByRole('cell').allInnerTexts()).slice(0, 6)).toEqual(['Copilot from the page', 'GitHub Copilot', 'None', 'Set', 'active', 'Never']);
    expect(await holds(page, token)).toBe(false);
    // Nothing to map: its usage is the organization's members'.
    expect(await row.getByRole('button', { name: /Mappings/ }).count()).toBe(0);

    const renewed = `github_pat_${randomBytes(30).toString('hex')}`;
    await row.getByRole('button', { name: 'Replace credential of Copilot from the page' }).click();
    expect(await page.evaluate(() => document.activeElement?.type)).toBe('password');
    await apps.getByLabel('New credential').fill(renewed);
    await apps.getByRole('button', { name: 'Store credential' }).click();
    await apps.getByRole('status').filter({ hasText: 'Stored the new credential of Copilot from the page, sealed' }).waitFor();
    expect(await holds(page, renewed)).toBe(false);
    const listed = await t.get(`/v1/organizations/${DEMO.orgs.globex}/apps?per_page=100`, await t.token({ user: DEMO.emails.margaret }));
    expect(listed.body.data).toContainEqual(expect.objectContaining({ name: 'Copilot from the page', provider: 'copilot', category: 'ai', is_active: true }));
    expect(JSON.stringify(listed.body)).not.toContain(renewed);
  });

  test('apps: a PagerDuty service mapped to a repository from the page; the incident it brought before counts there', async () => {
    const page = await openPage();
    await signInWithLink(page, DEMO.users.margaret);
    const apps = page.getByRole('region', { name: 'Globex' }).getByRole('region', { name: 'Apps', exact: true });
    // A provider whose deliveries name what they carry in the path: a URL for each, said with the secret.
    await apps.getByLabel('Provider').selectOption({ label: 'Deployments API' });
    await apps.getByRole('button', { name: 'Add app' }).click();
    const deploymentsUrl = await apps.getByLabel('Webhook URL', { exact: true }).inputValue();
    await apps.getByText(`POST deployments to ${deploymentsUrl}/deployments and incidents to ${deploymentsUrl}/incidents.`).waitFor();
    await apps.getByRole('button', { name: 'Done' }).click();
    await apps.getByLabel('Provider').selectOption({ label: 'PagerDuty' });
    await apps.getByLabel('Name').fill('PagerDuty from the page');
    await apps.getByRole('button', { name: 'Add app' }).click();
    const appId = /\/ingest\/pagerduty\/(app_\w+)$/.exec(await apps.getByLabel('Webhook URL', { exact: true }).inputValue())![1];
    await apps.getByRole('button', { name: 'Done' }).click();
    const source = { appId, organizationId: DEMO.orgs.globex };
    const opened = new Date('2026-06-01T08:00:00Z');
    await t.runtime.writers.operations.receive({ source, id: 'page-triggered', event: 'incident.triggered' }, [
      {
        kind: 'incident',
        board: { candidates: ['PCORE01'], namesRepository: false },
        incident: { externalId: 'Q1PAGE', title: 'Core down', causeSha: null, fixSha: null, createdAt: opened, resolvedAt: null, updatedAt: opened },
      },
    ]);

    await apps.getByRole('row', { name: /PagerDuty from the page/ }).getByRole('button', { name: 'Mappings of PagerDuty from the page' }).click();
    const mappings = apps.getByRole('region', { name: 'Mappings of PagerDuty from the page' });
    await mappings.getByText('No boards mapped').waitFor();
    // An incident tool has no statuses or accounts to map, and its boards go to repositories, not teams.
    expect(await mappings.getByRole('button', { name: 'Map status' }).count()).toBe(0);
    expect(await mappings.getByLabel('Team').count()).toBe(0);
    await mappings.getByLabel('Board').fill('PCORE01');
    await mappings.getByLabel('Repository').selectOption({ label: 'globex/core' });
    await mappings.getByRole('button', { name: 'Map board' }).click();
    await mappings.getByRole('status').filter({ hasText: 'Mapped PCORE01 to globex/core' }).waitFor();
    await mappings.getByRole('row', { name: /PCORE01/ }).getByRole('cell', { name: 'Repository globex/core' }).waitFor();
    const listed = await t.get(`/v1/organizations/${DEMO.orgs.globex}/incidents?per_page=100`, await t.token({ user: DEMO.emails.margaret }));
    expect(listed.body.data).toContainEqual(expect.objectContaining({ app_id: appId, service: 'PCORE01', repository_id: DEMO.repos.globexCore }));

    // A service runs in several repositories: mapped to a second, then unmapped from it, its incidents stay with the first.
    const gitlab = (await GitApp.findByPk(DEMO.gitApps.globexGitlab))!;
    const ops = { providerId: 'globex-ops-page', name: 'ops', fullName: 'globex/ops', defaultBranch: 'main', isPrivate: true, createdAt: opened };
    await t.runtime.writers.gitActivity.receive({ gitApp: gitlab, id: 'page-ops-push', event: 'push' }, { kind: 'push', repository: ops, commits: [] });
    await page.getByRole('button', { name: 'Mappings of PagerDuty from the page' }).click();
    await mappings.getByLabel('Board').fill('PCORE01');
    await mappings.getByLabel('Repository').selectOption({ label: 'globex/ops' });
    await mappings.getByRole('button', { name: 'Map board' }).click();
    await mappings.getByRole('row', { name: /PCORE01/ }).getByRole('cell', { name: 'Repository globex/ops' }).waitFor();
    await mappings.getByRole('button', { name: 'Unmap PCORE01 from globex/ops' }).click();
    await mappings.getByRole('status').filter({ hasText: 'Unmapped PCORE01 from globex/ops: its incidents count for globex/core.' }).waitFor();

    await mappings.getByRole('button', { name: 'Unmap PCORE01 from globex/core' }).click();
    await mappings.getByRole('status').filter({ hasText: 'Unmapped PCORE01: its incidents and deployments count for the organization only.' }).waitFor();
    const after = await t.get(`/v1/organizations/${DEMO.orgs.globex}/incidents?per_page=100`, await t.token({ user: DEMO.emails.margaret }));
    expect(after.body.data).toContainEqual(expect.objectContaining({ app_id: appId, service: 'PCORE01', repository_id: null }));
  });

  test('reached by a host name over plain HTTP: it all loads, and Copy selects the value where there is no clipboard', async () => {
    // Not a secure context (as a service on an internal name without TLS): no navigator.clipboard, and a CSP with
    // upgrade-insecure-requests would send the page's own script and styles to https.
    const host = 'platform.test';
    const plain = await launchChromium([`--host-resolver-rules=MAP ${host} 127.0.0.1`]);
    try {
      const origin = `http://${host}:${new URL(base).port}`;
      const page = await openPage({ in: plain });
      await signInWithLink(page, DEMO.users.ada, origin);
      expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
      const tokens = page.getByRole('region', { name: 'API tokens' });
      await tokens.getByLabel('Name').fill('plain http token');
      await tokens.getByRole('button', { name: 'Generate token' }).click();
      const token = await tokens.getByLabel('New API token', { exact: true }).inputValue();
      await tokens.getByRole('button', { name: 'Copy new API token' }).click();
      await tokens.getByRole('status').filter({ hasText: 'Selected: press Ctrl+C' }).waitFor();
      const selected = await page.evaluate(() => {
        const el = document.activeElement!;
        return (el.value ?? '').slice(el.selectionStart ?? 0, el.selectionEnd ?? 0);
      });
      expect(selected).toBe(token);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('link', { name: 'Sign in' }).waitFor();
      expect(page.url()).toBe(`${origin}/settings/`);
    } finally {
      await context?.close();
      context = undefined;
      await plain.close();
    }
  });

  test('a manager sees only their own tokens; signing out ends the session', async () => {
    const page = await openPage();
    await signInWithLink(page, DEMO.users.grace);
    await page.getByText('Your organizations: Acme Corp (manager).').waitFor();
    const tokens = page.getByRole('region', { name: 'API tokens' });
    await tokens.getByRole('button', { name: 'Generate token' }).waitFor();
    // The form shows before the list has loaded; signing out sooner would abort that request (a failure in chromium).
    await tokens.getByText('You have no API tokens yet.').or(tokens.getByRole('table', { name: 'Your API tokens' })).waitFor();
    expect(await page.getByRole('region', { name: 'Acme Corp' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    const session = await page.evaluate(async () => (await fetch('/trpc/settings.session', { credentials: 'same-origin' })).status);
    expect(session).toBe(401);
  });
});

/** A fresh context, its console errors, page errors and failed requests collected, but for the answers expected. */
async function openPage(options: { clipboard?: boolean; expectStatuses?: number[]; in?: Browser } = {}): Promise<Page> {
  const watched = await watchedPage(options.in ?? browser, { expectStatuses: options.expectStatuses, permissions: options.clipboard ? ['clipboard-read', 'clipboard-write'] : undefined });
  context = watched.context;
  problems = watched.problems;
  return watched.page;
}

/** The real flow: `npm run tokens -- login-link` prints /auth/link#<token>; its page has a "Sign in" button. */
async function signInWithLink(page: Page, userId: string, origin = base): Promise<void> {
  const { token } = await createLoginLink(userId);
  await page.goto(`${origin}/auth/link#${token}`);
  const [answer] = await Promise.all([
    page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/auth/link'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  if (answer.status() !== 303) throw new Error(`the sign-in link was refused: ${answer.status()} ${await page.locator('main').innerText()}`);
  await page.waitForURL(`${origin}/settings/`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Whether a value is anywhere in the page: its markup, a field's value, the address or the page's storage. */
function holds(page: Page, secret: string): Promise<boolean> {
  return page.evaluate(
    (s) =>
      document.documentElement.outerHTML.includes(s) ||
      Array.from(document.querySelectorAll('input, textarea'), (el) => el.value ?? '').some((v) => v.includes(s)) ||
      window.location.href.includes(s) ||
      localStorage.length > 0 ||
      sessionStorage.length > 0,
    secret,
  );
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
async function tabTo(page: Page, name: string, maxPresses = 120): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const focused = await focusedName(page);
    if (focused === name) return;
    seen.push(focused);
  }
  throw new Error(`"${name}" not reached by Tab; focus went through: ${seen.join(' | ')}`);
}

/** Repeats a request until it answers `wanted` (the authenticators cache a token for up to 5 s) or 7 s pass. */
async function statusWithin(send: () => request.Test, wanted: number): Promise<number> {
  const deadline = Date.now() + 7_000;
  let status = (await send()).status;
  while (status !== wanted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    status = (await send()).status;
  }
  return status;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
