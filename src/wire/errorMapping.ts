import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/unstable-core-do-not-import';
import { DomainError, domainErrorOf, ErrorKind, SERVER_ERROR_MESSAGE } from '../errors';
import { isRecord } from './record';

/**
 * The REST and tRPC surface's one error mapping: from anything thrown (domain errors, input validation, express's
 * own parsers, tRPC's routing) to the codes of docs/api.md#envelopes-and-errors and their statuses. Unknown failures are masked.
 */

/**
 * The codes of docs/api.md#envelopes-and-errors, and three for requests refused before they are read (a head too slow, a URL or
 * headers too long: the spec ties VALIDATION_ERROR to 400).
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  URI_TOO_LONG: 414,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure as the REST envelope and tRPC's `data.code` show it. */
export interface RestError {
  code: ErrorCode;
  status: number;
  message: string;
  /** Seconds until the client may retry (429, 503). */
  retryAfterSeconds?: number;
  /** For a masked server error: what really failed, for the log (never sent). */
  cause?: unknown;
}

export const restError = (code: ErrorCode, message: string, detail: Pick<RestError, 'retryAfterSeconds' | 'cause'> = {}): RestError => ({
  code,
  status: ERROR_STATUS[code],
  message,
  ...detail,
});

const CODE_OF: Record<ErrorKind, ErrorCode> = {
  invalid: 'VALIDATION_ERROR',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  // Only a change can clash with what exists: tRPC's settings.* (a name taken, a team its identity provider owns), as
  // ingest answers it; no /v1 operation writes.
  conflict: 'CONFLICT',
  // No /v1 operation takes a body: these reach REST only as a client's mistake.
  too_large: 'VALIDATION_ERROR',
  unsupported_media_type: 'VALIDATION_ERROR',
  rate_limited: 'RATE_LIMITED',
  // A figure too slow to compute (METRICS_QUERY_TIMEOUT_MS), a race lost every time, the database out of reach: the
  // client is told so, with when to try again.
  unavailable: 'SERVICE_UNAVAILABLE',
};

const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  VALIDATION_ERROR: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  // Refused before any procedure runs (src/http/server.ts); tRPC has no code of their own.
  REQUEST_TIMEOUT: 'TIMEOUT',
  URI_TOO_LONG: 'BAD_REQUEST',
  HEADERS_TOO_LARGE: 'BAD_REQUEST',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

function isZodError(err: unknown): err is Error & { issues: ZodIssueLike[] } {
  return err instanceof Error && err.name === 'ZodError' && 'issues' in err && Array.isArray(err.issues);
}

/** Our schemas' messages name their parameter; others get the parameter put in front. */
export function describeIssues(issues: ZodIssueLike[]): string {
  const messages = issues.map((issue) => {
    const param = issue.path.map(String).join('.');
    return param && !issue.message.startsWith(param) ? `${param}: ${issue.message}` : issue.message;
  });
  return [...new Set(messages)].join('; ');
}

/** express's own parsers (a malformed URL escape, …) flag a client's mistake with a 4xx status of their own. */
function isParserRefusal(err: unknown): boolean {
  const status = isRecord(err) ? err.status : undefined;
  return !(err instanceof DomainError) && !(err instanceof TRPCError) && typeof status === 'number' && status >= 400 && status < 500;
}

const masked = (cause: unknown) => restError('SERVER_ERROR', SERVER_ERROR_MESSAGE, { cause });

/** The one mapping from anything thrown to what a client may see. */
export function toRestError(err: unknown): RestError {
  const domain = domainErrorOf(err);
  if (domain) return restError(CODE_OF[domain.kind], domain.message, { retryAfterSeconds: domain.detail.retryAfterSeconds });
  if (isZodError(err)) return restError('VALIDATION_ERROR', describeIssues(err.issues));
  if (isParserRefusal(err)) return restError('VALIDATION_ERROR', 'Malformed request');
  if (err instanceof TRPCError) {
    if (isZodError(err.cause)) return toRestError(err.cause);
    switch (err.code) {
      case 'NOT_FOUND':
      case 'METHOD_NOT_SUPPORTED':
        return restError('NOT_FOUND', 'Route not found');
      case 'BAD_REQUEST':
      case 'PARSE_ERROR':
      case 'PAYLOAD_TOO_LARGE':
      case 'UNSUPPORTED_MEDIA_TYPE':
        return restError('VALIDATION_ERROR', err.message);
      default:
        return masked(err);
    }
  }
  return masked(err);
}

/** What really failed under the layers of wrapping (TRPCError → DomainError → …), for the log. */
export function rootCause(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 10 && current instanceof Error && current.cause !== undefined; depth++) current = current.cause;
  return current;
}

export function toTRPCError(err: unknown): TRPCError {
  const rest = toRestError(err);
  return new TRPCError({ code: TRPC_CODE[rest.code], message: rest.message, cause: err instanceof Error ? err : undefined });
}

/** True for failures that are ours, not the client's: these are logged with their stack. */
export function isServerFault(err: unknown): boolean {
  return toRestError(err).code === 'SERVER_ERROR';
}
