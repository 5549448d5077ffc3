import { QueryTypes } from 'sequelize';
import { AiVendorSource } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { defaultHttp, ProviderHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import cursorUsage from '../support/peers/cursor/daily-usage-data.json';
import claudePage1 from '../support/peers/anthropic/usage-report-page-1.json';
import reportAnswer from '../support/peers/copilot/users-1-day.json';
import { copilotUserRow, FakeGitHub } from '../support/peers/copilot/fakeGitHub';
import { HostilePeer, Misbehaviour, SeenRequest } from '../support/peers/hostilePeer';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The AI vendors' pulls go only where the vendor is (docs/ai-vendors.md#where-a-pull-goes), against fakes answering
 * with the vendors' documented examples (test/support/peers/) and peers that misbehave on purpose: a vendor
 * redirecting to another host gives that host no key; Copilot's report links are fetched without the GitHub token,
 * over https (plain http only to loopback under the operator's allowance); an answer of 2 GB is cut off at its cap
 * and nothing of that day is stored; a base URL refused by the rules stops the pull before anything is asked.
 * The caps are set to 1 MB here (OUTBOUND_ANSWER_MAX_MB, OUTBOUND_REPORT_MAX_MB); the defaults are tested in
 * test/outbound/outboundFetch.test.ts.
 */
let t: TestApp;
let github: FakeGitHub;
let vendor: HostilePeer;
let elsewhere: HostilePeer;
let vendorBehaviour: (request: SeenRequest) => Misbehaviour;
let elsewhereBehaviour: (request: SeenRequest) => Misbehaviour;
beforeAll(async () => {
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1', OUTBOUND_ANSWER_MAX_MB: '1', OUTBOUND_REPORT_MAX_MB: '1' });
  github = new FakeGitHub();
  vendor = new HostilePeer((r) => vendorBehaviour(r));
  elsewhere = new HostilePeer((r) => elsewhereBehaviour(r));
  await Promise.all([github.start(), vendor.start(), elsewhere.start()]);
});
afterAll(async () => {
  await Promise.all([github.stop(), vendor.stop(), elsewhere.stop()]);
  await t.close();
});
beforeEach(() => {
  github.reset();
  vendor.requests.length = 0;
  elsewhere.requests.length = 0;
  elsewhereBehaviour = () => ({ status: 200, body: JSON.stringify({ data: [], has_more: false }) });
});

const DAY = '2026-10-20';
const MB = 1024 * 1024;

const http = (allowPrivate = true): ProviderHttp => ({ ...defaultHttp({ ...outboundPolicy(t.config), allowPrivate }), sleep: async () => undefined });
const pulls = (allowPrivate = true) => new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), http(allowPrivate));

async function vendorApp(provider: string, baseUrl: string): Promise<string> {
  const access = provider === 'copilot' ? { account: { kind: 'organization' as const, slug: 'acme-corp' } } : {};
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, provider, { name: `${provider} ${unique()}`, vendor: { credential: `key_${unique()}_0123456789`, baseUrl, ...access } });
  return app.id;
}

async function storedAccounts(appId: string): Promise<string[]> {
  const rows = await t.runtime.sequelize.query<{ day: string; account: string }>('SELECT day, account FROM ai_vendor_days WHERE app_id = :appId ORDER BY day, account', {
    replacements: { appId },
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => `${String(r.day).slice(0, 10)} ${r.account}`);
}

/** Anthropic's documented page, of the day asked, for ada. */
const claudePage = () => ({ status: 200, body: JSON.stringify({ ...claudePage1, has_more: false, next_page: null, data: claudePage1.data.map((d) => ({ ...d, date: `${DAY}T00:00:00Z`, actor: { ...d.actor, email_address: DEMO.emails.ada } })) }) });

describe('a redirect to another host receives no key', () => {
  test("Claude Code: Anthropic's x-api-key reaches the vendor's host only; a redirect elsewhere refuses the day", async () => {
    for (const status of [301, 302, 307, 308]) {
      vendorBehaviour = (r) => ({ redirect: `${elsewhere.base}${r.path}`, status });
      const app = await vendorApp('claude_code', `${vendor.base}/anthropic`);
      const outcome = await pulls().pull(app, [DAY]);
      expect(outcome.refused).toEqual([
        {
          day: DAY,
          reason:
            `Claude Code's usage report of ${DAY}: refused: ${vendor.base} redirected to ${elsewhere.base}/anthropic/v1/organizations/usage_report/claude_code, ` +
            "another origin: not followed, so the request's credential is not sent there (give the final address instead)",
        },
      ]);
      expect(await storedAccounts(app)).toEqual([]);
    }
    // The vendor's host saw the key each time; the other host saw no request at all, so no key.
    expect(vendor.requests.map((r) => r.headers['x-api-key'])).toEqual(Array(4).fill(expect.stringMatching(/^key_/)));
    expect(elsewhere.requests).toEqual([]);
  });

  test('Claude Code: a redirect within the vendor’s origin is followed with the key, and the day stored', async () => {
    vendorBehaviour = (r) => (r.path.startsWith('/anthropic/') ? { redirect: `${vendor.base}${r.path.replace('/anthropic/', '/moved/')}`, status: 308 } : claudePage());
    const app = await vendorApp('claude_code', `${vendor.base}/anthropic`);
    expect((await pulls().pull(app, [DAY])).stored).toEqual([{ day: DAY, accounts: 1, matched: 1 }]);
    expect(vendor.requests.map((r) => [r.path.split('?')[0], r.headers['x-api-key']])).toEqual([
      ['/anthropic/v1/organizations/usage_report/claude_code', expect.stringMatching(/^key_/)],
      ['/moved/v1/organizations/usage_report/claude_code', expect.stringMatching(/^key_/)],
    ]);
  });

  test("Cursor: its POST redirected elsewhere (307 keeps the body and would keep the key) is refused; the other host gets nothing", async () => {
    vendorBehaviour = () => ({ redirect: `${elsewhere.base}/teams/daily-usage-data`, status: 307 });
    const app = await vendorApp('cursor', `${vendor.base}/cursor`);
    const outcome = await pulls().pull(app, [DAY]);
    expect(outcome.refused[0].reason).toMatch(/^Cursor's daily usage of 2026-10-20: refused: .* another origin: not followed, so the request's credential is not sent there/);
    expect(vendor.requests[0].headers.authorization).toMatch(/^Basic /);
    expect(elsewhere.requests).toEqual([]);
  });

  test("Copilot: the report's signed link is fetched without the GitHub token, and may redirect elsewhere: that host gets no token either", async () => {
    const app = await vendorApp('copilot', github.base);
    const day = '2026-10-21';
    const rows = [copilotUserRow('ada-lovelace', 11, day), copilotUserRow('GHopper', 12, day)];
    github.report(day, [], [{ status: 200, body: JSON.stringify({ ...reportAnswer, download_links: [`${vendor.base}/signed/1.ndjson?sig=abc`], report_day: day }) }]);
    vendorBehaviour = () => ({ redirect: `${elsewhere.base}/blob/1.ndjson?sig=abc` });
    elsewhereBehaviour = () => ({ status: 200, body: rows.map((r) => JSON.stringify(r)).join('\n') });
    const asked = github.requests.length;
    expect((await pulls().pull(app, [day])).stored).toEqual([{ day, accounts: 2, matched: 2 }]);
    expect(github.requests.slice(asked).map((r) => r.authorization)).toEqual([expect.stringMatching(/^Bearer key_/)]);
    expect([...vendor.requests, ...elsewhere.requests].map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/signed/1.ndjson?sig=abc', undefined],
      ['/blob/1.ndjson?sig=abc', undefined],
    ]);
  });
});

describe('where a report link and a base URL may point', () => {
  test('Copilot: a link over plain http to a public address is refused (no connection made), and the day stores nothing', async () => {
    const app = await vendorApp('copilot', github.base);
    github.report(DAY, [], [{ status: 200, body: JSON.stringify({ ...reportAnswer, download_links: ['http://8.8.8.8/copilot-usage-report-1.ndjson'], report_day: DAY }) }]);
    const outcome = await pulls().pull(app, [DAY]);
    expect(outcome.refused).toEqual([{ day: DAY, reason: `Copilot's users report of ${DAY}, file 1: refused: 8.8.8.8 is a public address, called only over https://` }]);
    expect(await storedAccounts(app)).toEqual([]);
  });

  test('without the allowance, a base URL on plain http or at a private address stops the pull before anything is asked, and says why', async () => {
    const asked = github.requests.length;
    for (const [base, why] of [
      [github.base, `${github.base} is plain http; outgoing calls use https:// (http:// only to a loopback or private address, when WEBHOOK_ALLOW_PRIVATE=1)`],
      [github.base.replace('http:', 'https:'), '127.0.0.1 is a loopback address; outgoing calls go only to public addresses'],
      ['https://169.254.169.254/latest', '169.254.169.254 is a linkLocal address; outgoing calls go only to public addresses'],
    ]) {
      const app = await vendorApp('copilot', base);
      const outcome = await pulls(false).pull(app, [DAY]);
      const said = `The base URL ${base.replace(/\/$/, '')} is refused: ${why}`;
      expect(outcome).toMatchObject({ stored: [], refused: [], credential_refused: null, destination_refused: said });
      // Kept for `apps list` and the settings page; the app is not failing (its credential was never refused).
      expect(await AiVendorSource.findByPk(app)).toMatchObject({ pull_result: said, failing: false });
    }
    expect(github.requests.slice(asked)).toEqual([]);
  });
});

describe('an answer of 2 GB is cut off at its cap, and its day stores nothing', () => {
  test("Copilot: a 2 GB report file (valid lines, made lazily) is refused at 1 MB; the day's earlier figures stay as they were", async () => {
    const app = await vendorApp('copilot', github.base);
    github.report(DAY, [[copilotUserRow('ada-lovelace', 11, DAY)]]);
    expect((await pulls().pull(app, [DAY])).stored).toEqual([{ day: DAY, accounts: 1, matched: 1 }]);

    const line = `${JSON.stringify(copilotUserRow('GHopper', 12, DAY))}\n`;
    github.report(DAY, [], [{ status: 200, body: JSON.stringify({ ...reportAnswer, download_links: [`${vendor.base}/files/huge.ndjson`], report_day: DAY }) }]);
    vendorBehaviour = () => ({ stream: { bytes: 2 * 1024 * MB, chunk: line.repeat(50), headers: { 'content-type': 'application/x-ndjson' } } });
    const outcome = await pulls().pull(app, [DAY]);
    expect(outcome.stored).toEqual([]);
    expect(outcome.refused).toEqual([
      {
        day: DAY,
        reason: `Copilot's users report of ${DAY}, file 1: ${vendor.base}/files/huge.ndjson sent more than 1 MB: the answer was cut off there and is not used (OUTBOUND_REPORT_MAX_MB sets the limit)`,
      },
    ]);
    expect(await storedAccounts(app)).toEqual([`${DAY} ada-lovelace`]);
    const [sent] = (await vendor.sent()).slice(-1);
    expect(sent).toBeLessThan(64 * MB);
  });

  test('Claude Code: a 2 GB page, chunked or declared, is refused at 1 MB with nothing stored', async () => {
    const entry = JSON.stringify({ ...claudePage1.data[0], date: `${DAY}T00:00:00Z`, actor: { type: 'user_actor', email_address: DEMO.emails.ada } });
    for (const declareLength of [false, true]) {
      vendorBehaviour = () => ({ stream: { bytes: 2 * 1024 * MB, prefix: '{"has_more":false,"data":[', chunk: `${entry},`.repeat(50), declareLength, headers: { 'content-type': 'application/json' } } });
      const app = await vendorApp('claude_code', `${vendor.base}/anthropic`);
      const outcome = await pulls().pull(app, [DAY]);
      expect(outcome.refused).toEqual([
        {
          day: DAY,
          reason: `Claude Code's usage report of ${DAY}: ${vendor.base}/anthropic/v1/organizations/usage_report/claude_code sent more than 1 MB: the answer was cut off there and is not used (OUTBOUND_ANSWER_MAX_MB sets the limit)`,
        },
      ]);
      expect(await storedAccounts(app)).toEqual([]);
    }
  });

  test("Cursor: an answer within the cap (Cursor's documented day) is read and stored as before", async () => {
    const [documented] = cursorUsage.data;
    const start = Date.parse(`${DAY}T00:00:00Z`);
    vendorBehaviour = () => ({ status: 200, body: JSON.stringify({ data: [{ ...documented, email: DEMO.emails.grace, date: start }] }), headers: { 'content-type': 'application/json' } });
    const app = await vendorApp('cursor', `${vendor.base}/cursor`);
    expect((await pulls().pull(app, [DAY])).stored).toEqual([{ day: DAY, accounts: 1, matched: 1 }]);
  });
});
