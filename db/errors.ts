/**
 * What went wrong, in the domain's words and without any status: services, access rules and the data layer throw
 * these; each surface maps a kind to its own status and format in one place (REST and tRPC:
 * src/wire/errorMapping.ts; SCIM: src/scim/errors.ts; ingest: src/ingest/errors.ts; OTLP: src/otlp/errors.ts),
 * after `domainErrorOf` (src/errors.ts) has said which other failures are the domain's too (a store out of reach).
 * The message says what to fix.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable';

export interface ErrorDetail {
  /** Seconds until the client may try again (rate_limited, unavailable). */
  retryAfterSeconds?: number;
  /** The input the message is about, where a surface names it (SCIM answers a bad `filter` as `invalidFilter`). */
  field?: 'filter';
  /** `unavailable` because a store did not answer (not a race, not a slow figure): counted apart by the metrics. */
  outage?: 'database' | 'redis';
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly detail: ErrorDetail = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
