/**
 * The error codes of the spec (§7), and three for requests refused before they are read (a head too slow, a URL or
 * headers too long: the spec ties VALIDATION_ERROR to 400); every failure a client sees is one of these.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure meant for the client: services throw it, the transports render it as the error envelope. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds until a rate-limited client may retry (429 only). */
    readonly retryAfterSeconds?: number,
    /** For a masked server error: what really failed, for the log (never sent). */
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The kinds of addressable resources, in the words used by 404 and 403 messages. */
export const RESOURCE_KIND = {
  user: 'User',
  organization: 'Organization',
  team: 'Team',
  gitApp: 'Git app',
  repository: 'Repository',
  app: 'App',
  dashboardView: 'Dashboard view',
  teamMember: 'Team member',
} as const;

export type ResourceKind = keyof typeof RESOURCE_KIND;

export const notFound = (kind: ResourceKind) => new ApiError('NOT_FOUND', `${RESOURCE_KIND[kind]} not found`);

export const forbidden = (kind: ResourceKind) =>
  new ApiError('FORBIDDEN', `You do not have permission to access this ${RESOURCE_KIND[kind].toLowerCase()}`);

export const invalid = (message: string) => new ApiError('VALIDATION_ERROR', message);

export const SERVER_ERROR_MESSAGE = 'Internal server error';
