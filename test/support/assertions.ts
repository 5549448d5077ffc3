import type request from 'supertest';

// Response bodies are checked field by field against the spec; a loose type keeps the tests readable.
export type Body = Record<string, any>;

/** The error envelope, exactly: status, code, message and nothing else (no stack, no issues). */
export function expectError(res: request.Response, status: number, code: string, message?: string | RegExp): Body {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { status: 'error', error: { code } } });
  expect(Object.keys(res.body).sort()).toEqual(['error', 'status']);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (typeof message === 'string') expect(res.body.error.message).toBe(message);
  else if (message) expect(res.body.error.message).toMatch(message);
  return res.body;
}

/** A list's envelope, meta and item keys, checked against the field list of its kind. */
export function expectList(body: Body, fields: string[]): void {
  expect(Object.keys(body).sort()).toEqual(['data', 'meta', 'status']);
  expect(body.status).toBe('success');
  expect(Object.keys(body.meta).sort()).toEqual(['order', 'page', 'per_page', 'sort', 'total', 'total_pages']);
  expect(body.meta.total_pages).toBe(Math.ceil(body.meta.total / body.meta.per_page));
  for (const item of body.data) expect(Object.keys(item).sort()).toEqual(fields);
}

export const ids = (body: Body): string[] => body.data.map((item: Body) => item.id);

/** The default order: created_at desc, ties by id desc. */
export const byCreatedDesc = (a: Body, b: Body) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;

/** The reverse of the default order: created_at asc, ties by id asc. */
export const byCreatedAsc = (a: Body, b: Body) => -byCreatedDesc(a, b);

/**
 * The expected list envelope, exactly: page 1 of 50, sorted by created_at desc, and one page when there is
 * any item (none when empty); `meta` overrides any of these.
 */
export const listEnvelope = (data: unknown[], meta: Partial<Body> = {}) => ({
  status: 'success',
  data,
  meta: { page: 1, per_page: 50, total: data.length, total_pages: data.length ? 1 : 0, sort: 'created_at', order: 'desc', ...meta },
});

/**
 * Text order of the backend: SQLite compares bytes, MariaDB/MySQL's default collation ignores case
 * (the two backends order `sort=name|title` differently when case differs). Ties go by `tieField` (id).
 */
export function textOrder(getDialect: () => string) {
  const textKey = (s: string) => (getDialect() === 'mysql' ? s.toUpperCase() : s);
  const byText = (field: string, order: 'asc' | 'desc', tieField = 'id') => (a: Body, b: Body) => {
    const [x, y] = [textKey(a[field]), textKey(b[field])];
    const cmp = x === y ? (textKey(a[tieField]) < textKey(b[tieField]) ? -1 : 1) : x < y ? -1 : 1;
    return order === 'asc' ? cmp : -cmp;
  };
  return { textKey, byText };
}
