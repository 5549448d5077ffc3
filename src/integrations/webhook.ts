import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { verifyWithFallback } from '@octokit/webhooks-methods';
import { invalid, unauthenticated } from '../errors';
import { containsNul } from '../wire/text';
import type { Headers } from './provider';

/** A header's first value. */
export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** 1 MB: far above what any provider without a documented cap sends (a few KB). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** A delivery's JSON body, after its Content-Type says so; 400 saying what to fix otherwise. */
export function jsonBody(headers: Headers, body: Buffer): unknown {
  const type = header(headers, 'content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw invalid(`Send the body as application/json (got ${type || 'no Content-Type'})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid('The body is not valid JSON');
  }
  // JSON can only hold a NUL as the escape \u0000: a body without one holds none, and is not walked.
  if (body.includes('\\u0000') && containsNul(parsed)) throw invalid('The body holds a NUL character (\\u0000); no field of a delivery may contain one');
  return parsed;
}

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The provider's delivery id from its header: required, and a plain token (it keys the deduplication). */
export function deliveryIdHeader(headers: Headers, name: string, hint: string): string {
  return namedDeliveryId(header(headers, name.toLowerCase()), name, hint);
}

/**
 * Whether `hexDigest` is the HMAC-SHA256 of the body with one of the secrets. Every secret is compared, on digests
 * of equal length, so the time taken says nothing of which matched, or how much of the digest did.
 */
export function signedWithOneOf(hexDigest: string | null, body: Buffer, secrets: string[]): boolean {
  return hexDigest !== null && signedWithAnyOf([hexDigest], body, secrets);
}

/** As signedWithOneOf, for a provider that may send several signatures at once (PagerDuty during a rotation). */
export function signedWithAnyOf(hexDigests: string[], body: Buffer, secrets: string[]): boolean {
  const given = hexDigests.filter((d) => /^[0-9a-f]{64}$/i.test(d)).map((d) => Buffer.from(d, 'hex'));
  const expected = secrets.map((secret) => createHmac('sha256', secret).update(body).digest());
  const matches = given.flatMap((g) => expected.map((e) => timingSafeEqual(g, e)));
  return matches.includes(true);
}

/**
 * Whether `Authorization: Bearer <token>` carries one of the secrets (Opsgenie and the deployments API send it, as a
 * custom header or from a CI's secret store). Compared as SHA-256 digests, of equal length whatever was sent, so
 * the time taken says nothing of the secret's length or of how much matched.
 */
export function bearerOneOf(headers: Headers, secrets: string[]): boolean {
  const token = /^Bearer ([\x21-\x7e]{1,500})$/.exec(header(headers, 'authorization') ?? '')?.[1];
  if (token === undefined) return false;
  const given = createHash('sha256').update(token).digest();
  const matches = secrets.map((secret) => timingSafeEqual(given, createHash('sha256').update(secret).digest()));
  return matches.includes(true);
}

/**
 * `sha256=<hex HMAC-SHA256 of the body>` in header `name` (GitHub's `X-Hub-Signature-256`, Bitbucket's
 * `X-Hub-Signature`), checked by GitHub's own helper in constant time against each secret; `hint` says where the
 * sender's secret is set.
 */
export async function checkHubSignature(name: string, headers: Headers, body: Buffer, secrets: string[], hint: string): Promise<void> {
  const signature = header(headers, name.toLowerCase());
  if (!signature) throw unauthenticated(`Missing ${name}: ${hint}`);
  // The helper would fall back to SHA-1 for other prefixes; only SHA-256 is accepted here.
  const valid = signature.startsWith('sha256=') && body.length > 0 && (await verifyWithFallback(secrets[0], body.toString('utf8'), signature, secrets.slice(1)));
  if (!valid) throw unauthenticated(`${name} does not match the body: the webhook's secret differs from the git app's`);
}

/** A delivery id from a header: required, and a plain token (it keys the deduplication). */
export function namedDeliveryId(value: string | undefined, name: string, hint: string): string {
  if (!value) throw invalid(`Missing ${name} header: ${hint}`);
  if (!DELIVERY_ID.test(value)) throw invalid(`${name} must be 1 to 100 letters, digits, '.', '_', ':' or '-'`);
  return value;
}
