import type { CostSubject } from '../../../db/models';
import { invalid } from '../../errors';
import { aiToolNames } from '../aiUsage/toolNames';
import type { ProviderCatalog } from '../apps/catalog';

/** What an organization's rates are in until it sets one in another currency. */
export const DEFAULT_CURRENCY = 'USD';

/** What the AI tools' own cost estimates are in, and so what a `usd_rate` converts from. */
export const TOOL_COST_CURRENCY = 'USD';

/** The largest value `cost_rates.amount` (DECIMAL(14,4)) holds. */
const MAX_AMOUNT = 9_999_999_999.9999;

/** Currencies in use, as Node's ICU knows them (ISO 4217 alphabetic codes). */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** What an amount is of each subject: a year of a person, a month of an active user's seat, a US dollar. */
export type CostPer = 'year' | 'month' | 'USD';
export const PER: Record<CostSubject, CostPer> = { organization: 'year', user: 'year', tool: 'month', usd_rate: 'USD' };

/**
 * The amount as stored: finite, at least 0 (a US dollar's value more than 0: the tools' estimates are multiplied
 * by it, and 0 would hide them), at most 4 decimals, as the column keeps them, so what is stored is what was given.
 */
export function checkAmount(amount: number, subject: CostSubject): number {
  if (!Number.isFinite(amount) || amount < 0) throw invalid(`An amount must be a finite number, 0 or more (got ${amount})`);
  if (amount > MAX_AMOUNT) throw invalid(`An amount is at most ${MAX_AMOUNT} (got ${amount})`);
  if (!/^\d+(\.\d{1,4})?$/.test(String(amount))) throw invalid(`An amount has at most 4 decimals (got ${amount})`);
  if (subject === 'usd_rate' && amount === 0) throw invalid('The value of 1 US dollar must be more than 0');
  return amount;
}

/** An ISO 4217 code, upper-cased: `eur` is taken as EUR, `EURO` and unknown codes are refused. */
export function checkCurrency(currency: string): string {
  const code = currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code) || !CURRENCIES.has(code)) {
    throw invalid(`'${currency}' is not an ISO 4217 currency code: three letters such as USD, EUR, GBP or JPY`);
  }
  return code;
}

/** A tool a seat price is set for: any AI tool whose use is counted, reported by telemetry or read from its vendor. */
export function checkTool(tool: string, catalog: ProviderCatalog): string {
  const tools = aiToolNames(catalog);
  const known = tools.find((t) => t === tool);
  if (!known) throw invalid(`Unknown AI tool '${tool}'; the tools are ${tools.join(', ')}`);
  return known;
}
