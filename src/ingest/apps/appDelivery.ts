import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { App } from '../../../db/models';
import type { ChatMessage } from '../../services/activity/conversations';
import type { OperationEvent } from '../../services/operations/operationInput';
import type { TaskEvent } from '../../services/work/taskInput';
import { containsNul } from '../../wire/text';
import { header } from '../auth';
import { badRequest } from '../errors';

export type Headers = Record<string, string | string[] | undefined>;

/**
 * What a delivery to an app asks for, read once it is authenticated: tasks, incidents and deployments, or chat
 * messages to store; why it is acknowledged and ignored (202); or the answer a handshake expects. `id` is the provider's delivery or event id, repeated by a redelivery
 * (docs/trackers.md#trackers): every tracker names its deliveries; the deployments API does not, as the caller's own
 * id keys the row itself (a later call with a resolution time must resolve it).
 */
export type ParsedAppDelivery =
  | { id: string; event: string; tasks: TaskEvent[] }
  | { id: string | null; event: string; operations: OperationEvent[] }
  | { id: string; event: string; messages: ChatMessage[] }
  | { id: string | null; event: string; ignored: string }
  /** A handshake the provider expects answered as it says (Slack's `url_verification`: its challenge). */
  | { id: null; event: string; reply: Record<string, string> };

/**
 * One provider's webhooks (docs/trackers.md#apps): how a delivery proves it knows the app's secret (checked in constant
 * time, before the body is parsed) and what its body means. `src/ingest/apps/router.ts` does the rest for every
 * provider: the app, body limits, rate limits, the writer, the answers.
 */
export type AppWebhooks = SignedAppWebhooks | TokenAppWebhooks;
export type SignedAppWebhooks = DeliveryReading & SignedDeliveries;
export type TokenAppWebhooks = DeliveryReading & TokenDeliveries;

/** A provider that signs the body: its signature is checked once the body is read. */
interface SignedDeliveries {
  /** Throws `unauthenticated` (401) unless the delivery is signed with one of the secrets; `invalid` for a stale one. */
  authenticate(headers: Headers, body: Buffer, secrets: string[], now: Date): void;
}

/** A provider that sends the secret itself in a header: checked before a byte of the body is read. */
interface TokenDeliveries {
  /** Throws `unauthenticated` (401) unless the headers carry one of the secrets. */
  authenticateHead(headers: Headers, secrets: string[]): void;
}

interface DeliveryReading {
  /** Throws `invalid` (400, saying what to fix) for a body that is not this provider's; `resource` is the path's last segment, for providers with `resources`. */
  parse(headers: Headers, body: Buffer, app: App, resource?: string): ParsedAppDelivery;
  /** A header only another provider sends, to point a misdirected delivery to its URL. */
  otherProviders?: Record<string, string>;
  /** The segments after the app id this provider takes (`/ingest/deployments/{app}/deployments`); none without. */
  resources?: readonly string[];
}

/** A delivery's JSON body, after its Content-Type says so; 400 saying what to fix otherwise. */
export function jsonBody(headers: Headers, body: Buffer): unknown {
  const type = header(headers, 'content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw badRequest(`Send the body as application/json (got ${type || 'no Content-Type'})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  // JSON can only hold a NUL as the escape \u0000: a body without one holds none, and is not walked.
  if (body.includes('\\u0000') && containsNul(parsed)) throw badRequest('The body holds a NUL character (\\u0000); no field of a delivery may contain one');
  return parsed;
}

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The provider's delivery id from its header: required, and a plain token (it keys the deduplication). */
export function deliveryIdHeader(headers: Headers, name: string, hint: string): string {
  const id = header(headers, name.toLowerCase());
  if (!id) throw badRequest(`Missing ${name} header: ${hint}`);
  if (!DELIVERY_ID.test(id)) throw badRequest(`${name} must be 1 to 100 letters, digits, '.', '_', ':' or '-'`);
  return id;
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
