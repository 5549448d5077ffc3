import { DataVersion, Organization } from '../../db/models';
import { DomainError } from '../../src/errors';
import { CostRates, CostRateTarget } from '../../src/services/finance/costRates';
import { providerCatalog } from '../../src/integrations/catalog';
import type { MemberInput } from '../../src/services/people/members';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { unique } from '../support/common';

/**
 * The cost inputs of the financial metrics (docs/metrics.md#ai-review-and-cost-figures) as the domain service keeps them: one rate per subject,
 * one currency per organization, amounts as the column stores them, members and known tools only.
 */

let t: TestApp;
let rates: CostRates;
beforeAll(async () => {
  t = await startTestApp();
  rates = new CostRates(t.runtime.writers.changes, providerCatalog());
});
afterAll(async () => t.close());

const member = (over: Partial<MemberInput> = {}): MemberInput => ({
  email: `cost.${unique()}@example.com`,
  name: 'Cost Person',
  role: 'collaborator',
  active: true,
  externalId: null,
  title: null,
  ...over,
});

/** An organization of its own for each test, so currencies never meet across tests. */
async function organization(): Promise<string> {
  const id = `org_cost_${unique()}`;
  await Organization.create({ id, name: 'Costly', created_at: new Date() });
  return id;
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

const DEFAULT: CostRateTarget = { subject: 'organization' };
const USD_RATE: CostRateTarget = { subject: 'usd_rate' };

test('every subject set, listed in order with the member’s e-mail, replaced in place, and unset', async () => {
  const org = await organization();
  const { user } = await t.runtime.writers.members.provision(org, member({ email: 'Zed.Cost@Example.com' }));
  expect(await rates.currencyOf(org)).toBe('USD');

  const byDefault = await rates.set(org, DEFAULT, { amount: 85_000, currency: 'eur' });
  expect(byDefault).toMatchObject({ subject: 'organization', subject_id: '', user_email: null, amount: 85_000, per: 'year', currency: 'EUR' });
  // By e-mail in any case; the organization's currency when none is given.
  expect(await rates.set(org, { subject: 'user', user: 'ZED.COST@example.com' }, { amount: 120_000.5 })).toMatchObject({
    subject: 'user',
    subject_id: user.id,
    user_email: 'zed.cost@example.com',
    amount: 120_000.5,
    per: 'year',
    currency: 'EUR',
  });
  await rates.set(org, { subject: 'tool', tool: 'claude_code' }, { amount: 25 });
  await rates.set(org, USD_RATE, { amount: 0.9215 });

  expect((await rates.list(org)).map((r) => [r.subject, r.subject_id, r.user_email, r.amount, r.per, r.currency])).toEqual([
    ['organization', '', null, 85_000, 'year', 'EUR'],
    ['user', user.id, 'zed.cost@example.com', 120_000.5, 'year', 'EUR'],
    ['tool', 'claude_code', null, 25, 'month', 'EUR'],
    ['usd_rate', '', null, 0.9215, 'USD', 'EUR'],
  ]);
  expect(await rates.currencyOf(org)).toBe('EUR');

  // Setting again replaces the rate: same row, new amount.
  const again = await rates.set(org, { subject: 'user', user: user.id }, { amount: 99_999.9999, currency: 'EUR' });
  expect(again.amount).toBe(99_999.9999);
  expect((await rates.list(org)).filter((r) => r.subject === 'user')).toEqual([expect.objectContaining({ amount: 99_999.9999, created_at: expect.any(Date) })]);

  for (const target of [{ subject: 'user', user: user.id }, { subject: 'tool', tool: 'claude_code' }, DEFAULT, USD_RATE] satisfies CostRateTarget[]) {
    expect((await rates.unset(org, target)).subject).toBe(target.subject);
  }
  expect(await rates.list(org)).toEqual([]);
  expect(await rates.currencyOf(org)).toBe('USD');
  const missing = await refusal(rates.unset(org, USD_RATE));
  expect([missing.kind, missing.message]).toEqual(['not_found', `Organization ${org} has no USD rate to unset`]);
});

test('one currency per organization: another one is refused, saying which it is and how to change it', async () => {
  const org = await organization();
  await rates.set(org, DEFAULT, { amount: 80_000, currency: 'EUR' });
  await rates.set(org, { subject: 'tool', tool: 'codex' }, { amount: 20 });
  const refused = await refusal(rates.set(org, { subject: 'tool', tool: 'gemini_cli' }, { amount: 20, currency: 'GBP' }));
  expect(refused.kind).toBe('conflict');
  expect(refused.message).toBe(
    `Organization ${org}'s rates are in EUR, and an organization has one currency. To change it to GBP, unset its other rates first, then set them again in GBP`,
  );
  expect(await rates.list(org)).toHaveLength(2);

  // With the other rates gone, the last one may change currency; left out, a rate keeps the one it had.
  await rates.unset(org, { subject: 'tool', tool: 'codex' });
  expect((await rates.set(org, DEFAULT, { amount: 70_000, currency: 'GBP' })).currency).toBe('GBP');
  expect((await rates.set(org, DEFAULT, { amount: 71_000 })).currency).toBe('GBP');

  for (const code of ['EURO', 'XYZ', 'E1R', '']) {
    const bad = await refusal(rates.set(org, DEFAULT, { amount: 1, currency: code }));
    expect([bad.kind, bad.message]).toEqual(['invalid', `'${code}' is not an ISO 4217 currency code: three letters such as USD, EUR, GBP or JPY`]);
  }
});

test('a USD rate only for an organization in another currency, and more than 0', async () => {
  const org = await organization();
  const inUsd = await refusal(rates.set(org, USD_RATE, { amount: 1 }));
  expect(inUsd.kind).toBe('invalid');
  expect(inUsd.message).toMatch(/currency is USD, the one the AI tools' cost estimates are in/);
  expect((await rates.set(org, USD_RATE, { amount: 151.25, currency: 'JPY' })).currency).toBe('JPY');
  expect((await refusal(rates.set(org, USD_RATE, { amount: 0 }))).message).toBe('The value of 1 US dollar must be more than 0');
});

test('amounts: finite, 0 or more, at most 4 decimals, within the column; nothing written otherwise', async () => {
  const org = await organization();
  const cases: [number, RegExp][] = [
    [-1, /finite number, 0 or more \(got -1\)/],
    [Number.NaN, /finite number, 0 or more \(got NaN\)/],
    [Number.POSITIVE_INFINITY, /finite number, 0 or more \(got Infinity\)/],
    [1.23456, /at most 4 decimals \(got 1.23456\)/],
    [0.1 + 0.2, /at most 4 decimals/],
    [1e-7, /at most 4 decimals/],
    [1e10, /at most 9999999999.9999/],
  ];
  for (const [amount, message] of cases) {
    const err = await refusal(rates.set(org, DEFAULT, { amount }));
    expect(err.kind).toBe('invalid');
    expect(err.message).toMatch(message);
  }
  expect(await rates.list(org)).toEqual([]);
  expect((await rates.set(org, DEFAULT, { amount: 0 })).amount).toBe(0);
  expect((await rates.set(org, DEFAULT, { amount: 9_999_999_999.9999 })).amount).toBe(9_999_999_999.9999);
});

test('members only, by id or any of their addresses; known tools only; a former member’s rate can still go', async () => {
  const stranger = await refusal(rates.set(DEMO.orgs.acme, { subject: 'user', user: DEMO.emails.outsider }, { amount: 1 }));
  expect([stranger.kind, stranger.message]).toEqual(['invalid', `${DEMO.emails.outsider} is not a member of organization ${DEMO.orgs.acme}; a cost is set for members only`]);
  expect((await refusal(rates.set(DEMO.orgs.acme, { subject: 'user', user: 'nobody@example.com' }, { amount: 1 }))).message).toBe('No user nobody@example.com');

  const tool = await refusal(rates.set(DEMO.orgs.acme, { subject: 'tool', tool: 'windsurf' }, { amount: 1 }));
  expect([tool.kind, tool.message]).toEqual(['invalid', "Unknown AI tool 'windsurf'; the tools are claude_code, gemini_cli, codex, copilot, cursor"]);

  const org = await organization();
  const work = `work.${unique()}@example.com`;
  const { user } = await t.runtime.writers.members.provision(
    org,
    member({ emails: [{ value: `home.${unique()}@example.com`, type: 'home', primary: true }, { value: work, type: 'work', primary: false }] }),
  );
  expect((await rates.set(org, { subject: 'user', user: work.toUpperCase() }, { amount: 1 })).subject_id).toBe(user.id);
  await t.runtime.writers.members.remove(org, user.id);
  expect((await rates.unset(org, { subject: 'user', user: user.id })).amount).toBe(1);
});

test('an unknown organization is not found; each change raises the cost_rates data version', async () => {
  for (const attempt of [rates.set('org_nope', DEFAULT, { amount: 1 }), rates.unset('org_nope', DEFAULT), rates.list('org_nope')]) {
    const err = await refusal(attempt);
    expect([err.kind, err.message]).toEqual(['not_found', 'No organization org_nope']);
  }
  const version = async () => Number((await DataVersion.findByPk('cost_rates'))?.version ?? 0);
  const before = await version();
  const org = await organization();
  await rates.set(org, DEFAULT, { amount: 1 });
  await rates.unset(org, DEFAULT);
  expect(await version()).toBe(before + 2);
});
