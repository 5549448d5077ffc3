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
