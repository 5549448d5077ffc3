/** created_at filters (docs/api.md#wire-rules): a date alone means that whole UTC day, a date-time means that instant. */
export const DATE_OPERATORS = ['eq', 'gte', 'lte', 'gt', 'lt'] as const;
export type DateOperator = (typeof DATE_OPERATORS)[number];

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// A space stands for '+': an unencoded '+' in a query string decodes to a space.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+\- ]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;

export interface TimeRange {
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound. */
  before?: Date;
}

/** `subMillisecond`: the instant lies strictly inside the millisecond `at` (e.g. `…00.0009Z`). */
export type ParsedDate = { kind: 'day'; start: Date } | { kind: 'instant'; at: Date; subMillisecond: boolean };

function validCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export function parseDateParam(value: string): ParsedDate | undefined {
  const day = DATE_ONLY.exec(value);
  if (day) {
    const [y, m, d] = day.slice(1, 4).map(Number);
    return validCalendarDate(y, m, d) ? { kind: 'day', start: new Date(Date.UTC(y, m - 1, d)) } : undefined;
  }
  const dt = DATE_TIME.exec(value);
  if (!dt) return undefined;
  const [y, m, d, hh, mm] = dt.slice(1, 6).map(Number);
  const ss = dt[6] === undefined ? 0 : Number(dt[6]);
  if (!validCalendarDate(y, m, d) || hh > 23 || mm > 59 || ss > 59) return undefined;
  const offset = dt[8].toUpperCase();
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return undefined;
  const at = new Date(value.replace(/ (\d{2}:\d{2})$/, '+$1'));
  const subMillisecond = /[1-9]/.test((dt[7] ?? '').slice(4));
  return Number.isNaN(at.getTime()) ? undefined : { kind: 'instant', at, subMillisecond };
}

/** Turns one operator and value into a half-open range [from, before). */
export function rangeFor(op: DateOperator, parsed: ParsedDate): TimeRange {
  if (parsed.kind === 'day') {
    const start = parsed.start;
    const end = new Date(start.getTime() + DAY_MS);
    switch (op) {
      case 'eq':
        return { from: start, before: end };
      case 'gte':
        return { from: start };
      case 'lte':
        return { before: end };
      case 'gt':
        return { from: end };
      case 'lt':
        return { before: start };
    }
  }
  const at = parsed.at;
  const next = new Date(at.getTime() + 1); // timestamps are stored with millisecond precision
  if (parsed.subMillisecond) {
    // t lies inside (at, next): no stored timestamp equals it; "after t" starts at next, "up to t" ends at at.
    return op === 'eq' ? { from: next, before: next } : op === 'gte' || op === 'gt' ? { from: next } : { before: next };
  }
  switch (op) {
    case 'eq':
      return { from: at, before: next };
    case 'gte':
      return { from: at };
    case 'lte':
      return { before: next };
    case 'gt':
      return { from: next };
    case 'lt':
      return { before: at };
  }
}

/** Several operators combine with AND: the intersection of their ranges. */
export function intersect(ranges: TimeRange[]): TimeRange {
  const out: TimeRange = {};
  for (const r of ranges) {
    if (r.from && (!out.from || r.from > out.from)) out.from = r.from;
    if (r.before && (!out.before || r.before < out.before)) out.before = r.before;
  }
  return out;
}

export const DATE_RULE =
  'must be an ISO 8601 date (2026-01-15, meaning that whole UTC day) or date-time with Z or an offset (2026-01-15T10:30:00Z)';
