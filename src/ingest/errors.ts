import type { Response } from 'express';
import { DomainError, domainErrorOf, ErrorKind } from '../errors';
import { errorEnvelope } from '../wire/envelopes';
import type { RateLimitDecision } from '../rateLimit/rateLimiter';
import { rateLimitMessage } from '../rateLimit/headers';

/**
 * The ingest surface's one error mapping: the error envelope of docs/api.md#envelopes-and-errors (`{"status":"error","error":{"code","message"}}`),
 * with the codes a webhook sender can meet. GitHub and GitLab show the body in their delivery logs, so every
 * message says what to fix.
 */
export const INGEST_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type IngestErrorCode = keyof typeof INGEST_ERROR_STATUS;

const CODE_OF: Record<ErrorKind, IngestErrorCode> = {
  invalid: 'VALIDATION_ERROR',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  rate_limited: 'RATE_LIMITED',
  unavailable: 'SERVICE_UNAVAILABLE',
};

export interface IngestAnswer {
  code: IngestErrorCode;
  status: number;
  message: string;
  /** Sent as Retry-After (503: a race lost every time, too many bodies at once, the database out of reach). */
  retryAfterSeconds?: number;
}

export const ingestAnswer = (code: IngestErrorCode, message: string): IngestAnswer => ({ code, status: INGEST_ERROR_STATUS[code], message });

/** Over a connection's or a client's budget of deliveries: 429 with Retry-After. */
export const rateLimited = (d: RateLimitDecision) => new DomainError('rate_limited', rateLimitMessage(d, 'deliveries'), { retryAfterSeconds: d.retryAfterSeconds });

/** What the sender sees for anything thrown; undefined for our own faults (logged, then answered as a 500). */
export function toIngestAnswer(err: unknown): IngestAnswer | undefined {
  const domain = domainErrorOf(err);
  return domain && { ...ingestAnswer(CODE_OF[domain.kind], domain.message), retryAfterSeconds: domain.detail.retryAfterSeconds };
}

export function sendIngestError(res: Response, answer: IngestAnswer): void {
  if (answer.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(answer.retryAfterSeconds))));
  res.status(answer.status).json(errorEnvelope(answer.code, answer.message));
}
