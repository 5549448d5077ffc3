import { AccessDeniedError, ConnectionAcquireTimeoutError, ConnectionError, DatabaseError, InvalidConnectionError } from 'sequelize';
import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, SocketClosedUnexpectedlyError, SocketTimeoutError } from 'redis';
import { DomainError, ErrorDetail } from '../db/errors';

/**
 * The domain's errors (the kinds and the class live in db/errors.ts, the lowest layer that throws them: the data
 * layer refuses a NUL there) and the helpers that name them.
 */
export { DomainError } from '../db/errors';
export type { ErrorDetail, ErrorKind } from '../db/errors';

export const invalid = (message: string, detail?: ErrorDetail) => new DomainError('invalid', message, detail);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);

/** The kinds of addressable resources, in the words used by 404 and 403 messages. */
export const RESOURCE_KIND = {
  user: 'User',
  organization: 'Organization',
  team: 'Team',
  gitApp: 'Git app',
  repository: 'Repository',
  pullRequest: 'Pull request',
  app: 'App',
  dashboardView: 'Dashboard view',
  teamMember: 'Team member',
} as const;

export type ResourceKind = keyof typeof RESOURCE_KIND;

export const resourceNotFound = (kind: ResourceKind) => notFound(`${RESOURCE_KIND[kind]} not found`);

export const forbidden = (kind: ResourceKind) =>
  new DomainError('forbidden', `You do not have permission to access this ${RESOURCE_KIND[kind].toLowerCase()}`);

export const SERVER_ERROR_MESSAGE = 'Internal server error';

/** What a client is told to wait before sending again while a store is out of reach. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A failure as the domain sees it, or undefined for a fault of ours (a bug, a misconfiguration: 500). Besides the
 * DomainErrors thrown (also when wrapped, as tRPC wraps them), a database or Redis that does not answer is the
 * domain's "unavailable": nothing the client sent is wrong and the same request will succeed once it is back, so
 * every surface answers it 503 with Retry-After, the status clients, load balancers and OTLP exporters retry.
 */
export function domainErrorOf(err: unknown): DomainError | undefined {
  for (let current = err, depth = 0; depth < 10 && current instanceof Error; current = current.cause, depth++) {
    if (current instanceof DomainError) return current;
    const outage = outageOf(current);
    if (outage) {
      const store = outage === 'database' ? 'The database' : 'The session store (Redis)';
      return new DomainError('unavailable', `${store} is not reachable at the moment; send the request again in a few seconds`, {
        retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
        outage,
      });
    }
  }
  return undefined;
}

/**
 * mysql2's codes for a connection that went away under a query, or that the server is refusing for now
 * (ER_CON_COUNT_ERROR: too many connections; ER_SERVER_SHUTDOWN; ER_CONNECTION_KILLED as a restart kills them).
 */
const LOST_CONNECTION_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  // The embedded file locked by another process past the busy timeout (db/connection.ts): it will be free again.
  'SQLITE_BUSY',
]);

/**
 * Which store, if any, failed to answer. Transient only: refused credentials, a database that does not exist or a
 * malformed connection setting (AccessDeniedError, InvalidConnectionError, ER_BAD_DB_ERROR, ER_DBACCESS_DENIED_ERROR)
 * will not heal by waiting, so they stay faults of ours (500) for the operator to fix.
 */
function outageOf(err: Error): 'database' | 'redis' | undefined {
  if (err instanceof ConnectionAcquireTimeoutError) return 'database';
  if (err instanceof AccessDeniedError || err instanceof InvalidConnectionError) return undefined;
  if (err instanceof ConnectionError) {
    const code = codeOf(err.parent);
    return code === 'ER_BAD_DB_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR' ? undefined : 'database';
  }
  if (err instanceof DatabaseError) {
    const code = codeOf(err.parent);
    // mysql2 marks an error fatal when the connection cannot go on (it is then discarded from the pool).
    const fatal = 'fatal' in err.parent && err.parent.fatal === true;
    return (code !== undefined && LOST_CONNECTION_CODES.has(code)) || fatal ? 'database' : undefined;
  }
  const redisDown =
    err instanceof ClientOfflineError ||
    err instanceof ClientClosedError ||
    err instanceof SocketClosedUnexpectedlyError ||
    err instanceof ConnectionTimeoutError ||
    err instanceof SocketTimeoutError;
  return redisDown ? 'redis' : undefined;
}

const codeOf = (err: Error | undefined): string | undefined => {
  const code = err && 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : undefined;
};
