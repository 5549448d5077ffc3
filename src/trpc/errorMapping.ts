import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/unstable-core-do-not-import';
import { ApiError, ErrorCode, SERVER_ERROR_MESSAGE } from '../errors';
import { NulInStatementError } from '../../db/connection';

const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  VALIDATION_ERROR: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  // Refused before any procedure runs (src/http/server.ts); tRPC has no code of their own.
  REQUEST_TIMEOUT: 'TIMEOUT',
  URI_TOO_LONG: 'BAD_REQUEST',
  HEADERS_TOO_LARGE: 'BAD_REQUEST',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
};

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

function isZodError(err: unknown): err is Error & { issues: ZodIssueLike[] } {
  return err instanceof Error && err.name === 'ZodError' && Array.isArray((err as { issues?: unknown }).issues);
}

/** Our schemas' messages name their parameter; others get the parameter put in front. */
export function describeIssues(issues: ZodIssueLike[]): string {
  const messages = issues.map((issue) => {
    const param = issue.path.map(String).join('.');
    return param && !issue.message.startsWith(param) ? `${param}: ${issue.message}` : issue.message;
  });
  return [...new Set(messages)].join('; ');
}

/** The one mapping from anything thrown to what a client may see. Unknown failures are masked. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof NulInStatementError) return new ApiError('VALIDATION_ERROR', err.message);
  if (isZodError(err)) return new ApiError('VALIDATION_ERROR', describeIssues(err.issues));
  if (err instanceof TRPCError) {
    if (err.cause instanceof ApiError || err.cause instanceof NulInStatementError || isZodError(err.cause)) return toApiError(err.cause);
    switch (err.code) {
      case 'NOT_FOUND':
      case 'METHOD_NOT_SUPPORTED':
        return new ApiError('NOT_FOUND', 'Route not found');
      case 'BAD_REQUEST':
      case 'PARSE_ERROR':
      case 'PAYLOAD_TOO_LARGE':
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new ApiError('VALIDATION_ERROR', err.message);
      default:
        return new ApiError('SERVER_ERROR', SERVER_ERROR_MESSAGE, undefined, { cause: err });
    }
  }
  return new ApiError('SERVER_ERROR', SERVER_ERROR_MESSAGE, undefined, { cause: err });
}

/** What really failed under the layers of wrapping (TRPCError → ApiError → …), for the log. */
export function rootCause(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 10 && current instanceof Error && current.cause !== undefined; depth++) current = current.cause;
  return current;
}

export function toTRPCError(err: unknown): TRPCError {
  const api = toApiError(err);
  return new TRPCError({ code: TRPC_CODE[api.code], message: api.message, cause: api });
}

/** True for failures that are ours, not the client's: these are logged with their stack. */
export function isServerFault(err: unknown): boolean {
  return toApiError(err).code === 'SERVER_ERROR';
}
