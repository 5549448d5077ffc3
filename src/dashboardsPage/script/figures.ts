import type { Unit } from './answers';

/** The value at a dotted path of an answer (`lead_time_for_changes.median_hours`); null where there is none. */
export function valueAt(answer: unknown, path: string): unknown {
  let value: unknown = answer;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}

export const numberAt = (answer: unknown, path: string): number | null => {
  const value = valueAt(answer, path);
  return typeof value === 'number' ? value : null;
};

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimals = (n: number) => new Intl.NumberFormat('en', { maximumFractionDigits: n });

/** A figure as people read it; `currency` for the organization's amounts. */
export function formatted(value: number | null, unit: Unit, currency = 'USD'): string {
  if (value === null) return 'No data';
  switch (unit) {
    case 'count':
    case 'lines':
      return whole.format(value);
    case 'hours':
      return `${decimals(1).format(value)} h`;
    case 'ratio':
      return `${decimals(1).format(value * 100)} %`;
    case 'per_day':
      // A deployment a month is 0.03 a day: small rates keep their first digits.
      return `${new Intl.NumberFormat('en', { maximumSignificantDigits: 2 }).format(value)} a day`;
    case 'usd':
      return new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(value);
    case 'money':
      return new Intl.NumberFormat('en', { style: 'currency', currency }).format(value);
    case 'fte':
    case 'index':
      return decimals(2).format(value);
  }
}
