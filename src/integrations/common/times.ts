import { invalid } from '../../errors';

// GitLab writes times three ways: ISO 8601 ("2013-12-03T17:23:34Z"), "2017-09-15 16:52:00 UTC" (in `changes`)
// and "2021-04-28 21:50:00 +0200" (`status_changed_at`). GitHub writes ISO 8601, and a repository's times in a
// push as Unix seconds.
const GITLAB_SPACED = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ?(UTC|[+-]\d{2}:?\d{2})$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A provider's time, or a 400 naming the field. */
export function providerTime(value: unknown, field: string): Date {
  const date = toDate(value);
  if (!date) throw invalid(`${field} must be a time (ISO 8601 or Unix seconds); got ${JSON.stringify(value)?.slice(0, 60)}`);
  return date;
}

export function optionalProviderTime(value: unknown, field: string): Date | null {
  return value === null || value === undefined || value === '' ? null : providerTime(value, field);
}

function toDate(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) date = new Date(value * 1000);
  else if (typeof value === 'string') {
    const spaced = GITLAB_SPACED.exec(value);
    if (spaced) date = new Date(withColonOffset(`${spaced[1]}T${spaced[2]}${spaced[3] === 'UTC' ? 'Z' : spaced[3]}`));
    else if (ISO.test(value)) date = new Date(withColonOffset(value));
  }
  // Years before 1970 or past 9999 are nobody's commit: a typo, or an attack on date arithmetic.
  return date && !Number.isNaN(date.getTime()) && date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999 ? date : undefined;
}

/** `+0200` → `+02:00`, the offset form every JavaScript engine parses. */
const withColonOffset = (text: string) => text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
