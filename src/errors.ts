/**
 * What went wrong, in the domain's words and without any status: services, access rules and the data layer throw
 * these; each surface maps a kind to its own status and format in one place (REST and tRPC:
 * src/trpc/errorMapping.ts; SCIM: src/scim/errors.ts; ingest: src/ingest/errors.ts). The message says what to fix.
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
