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
