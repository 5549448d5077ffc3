import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { chromium, Browser } from 'playwright-core';
import { assertBrowser, CHROMIUM, describeInBrowser } from '../support/peers/chromium';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * GET /docs: swagger-ui served from this process. The HTTP part checks the page, the assets and the 404
 * envelope; the browser part drives Debian's chromium through the page, up to an authorized request.
 */

const describeBrowser = describeInBrowser('docsPage');

const SCREENSHOT = path.join(__dirname, '..', '..', 'artifacts', 'docs-page.png');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('GET /docs over HTTP', () => {
  test('/docs redirects to /docs/, keeping the query', async () => {
    const res = await request(t.runtime.app).get('/docs?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/docs/?x=1');
  });

  test('the page is HTML that loads the local swagger-ui bundle and our initializer, under a CSP', async () => {
    const res = await request(t.runtime.app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<script src="./swagger-ui-bundle.js"></script>');
    expect(res.text).toContain('<script src="./swagger-initializer.js"></script>');
    expect(res.text).toContain('href="./swagger-ui.css"');
    expect(res.text).not.toMatch(/https?:\/\//);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    // No inline or eval'd scripts: that is why the initializer is a file of its own.
    expect(csp).toMatch(/(^|;)script-src 'self'(;|$)/);
  });

  test('the CSP differs from the app-wide one only by upgrade-insecure-requests', async () => {
    // Kept, chromium would fetch the assets over https when the page is opened over plain HTTP on a non-localhost host.
    const app = (await request(t.runtime.app).get('/healthz')).headers['content-security-policy'];
    const docs = (await request(t.runtime.app).get('/docs/')).headers['content-security-policy'];
    expect(app).toContain('upgrade-insecure-requests');
    expect(docs).toBe(app.replace(/;?upgrade-insecure-requests/, ''));
  });

  test('/docs/index.html is our page too, not the petstore one', async () => {
    const res = await request(t.runtime.app).get('/docs/index.html');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Platform API reference');
  });

  test('the initializer loads /v1/openapi.json, not the petstore', async () => {
    const res = await request(t.runtime.app).get('/docs/swagger-initializer.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.text).toContain("url: '/v1/openapi.json'");
    expect(res.text).toContain('persistAuthorization: false');
    expect(res.text).not.toContain('petstore');
  });

  test.each([
    ['swagger-ui-bundle.js', /^text\/javascript/],
    ['swagger-ui.css', /^text\/css/],
    ['index.css', /^text\/css/],
  ])('%s is served from swagger-ui-dist', async (file, type) => {
    const res = await request(t.runtime.app).get(`/docs/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  test('an unknown file under /docs is the JSON 404 envelope', async () => {
    const res = await request(t.runtime.app).get('/docs/nope.js');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'error', error: { code: 'NOT_FOUND', message: 'Route not found: GET /docs/nope.js' } });
  });
});

describeBrowser('GET /docs in chromium', () => {
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    assertBrowser();
    base = await t.listen();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Without the background-networking flags chromium's own connections are refused on the closed network.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  // The server is closed by t.close().
  afterAll(async () => browser?.close());

  test('lists every operation and performs an authorized request', async () => {
    const token = await t.token();
    const doc = (await request(t.runtime.app).get('/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { tags: string[] }>>;
      webhooks: Record<string, unknown>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.entries(item).filter(([method]) => method === 'get'));
    const tags = [...new Set(operations.flatMap(([, op]) => op.tags))].sort();
    expect(operations).toHaveLength(50);
    expect(tags).toEqual(['Dashboards', 'Git', 'Metrics', 'Organizations', 'Teams', 'Users']);

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));

    await page.goto(`${base}/docs`);
    expect(page.url()).toBe(`${base}/docs/`);
    await page.locator('.opblock').first().waitFor();
    // The outgoing webhooks (OpenAPI 3.1 `webhooks`) show too, under their own tag, one POST per event type.
    expect((await page.locator('.opblock-tag').evaluateAll((els) => els.map((el) => el.getAttribute('data-tag')))).sort()).toEqual([...tags, 'Webhooks']);
    await expect(page.locator('.opblock.opblock-get').count()).resolves.toBe(operations.length);
    await expect(page.locator('.opblock.opblock-post').count()).resolves.toBe(Object.keys(doc.webhooks).length);

    await page.locator('.auth-wrapper button.authorize').click();
    await page.getByLabel('auth-bearer-value').fill(token);
    await page.locator('.modal-ux button.authorize[type="submit"]').click();
    await page.locator('.modal-ux button.btn-done').click();

    const op = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/users/{user_id}"]') });
    await op.locator('.opblock-summary').click();
    // tryItOutEnabled: the operation opens ready to edit, its button offering to cancel.
    await expect(op.locator('.try-out__btn').textContent()).resolves.toBe('Cancel');
    await op.locator('tr[data-param-name="user_id"] input').fill(DEMO.users.linus);
    const [response] = await Promise.all([
      page.waitForResponse((res) => new URL(res.url()).pathname === `/v1/users/${DEMO.users.linus}`),
      op.locator('button.execute').click(),
    ]);

    expect(response.status()).toBe(200);
    expect(response.url()).toBe(`${base}/v1/users/${DEMO.users.linus}`);
    expect((await response.request().allHeaders()).authorization).toBe(`Bearer ${token}`);
    const rendered = op.locator('.live-responses-table tr.response');
    await rendered.waitFor();
    await expect(rendered.locator('.response-col_status').textContent()).resolves.toBe('200');
    await expect(rendered.locator('.response-col_description').textContent()).resolves.toContain(`"email": "${DEMO.emails.linus}"`);

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(problems).toEqual([]);
  });
});
