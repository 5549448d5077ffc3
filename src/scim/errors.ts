import { WriteError } from '../services/changes/errors';
import { NulInStatementError } from '../../db/connection';

/** RFC 7644 §3.12 `scimType` values (and DESIGN §11's list). */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM error response: the status, the `scimType` where RFC 7644 names one, and a detail saying what to fix. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

/** The SCIM surface's one mapping from what went wrong to its error format. */
export function toScimError(err: unknown): ScimError | undefined {
  if (err instanceof ScimError) return err;
  if (err instanceof NulInStatementError) return new ScimError(400, 'invalidValue', err.message);
  if (err instanceof WriteError) {
    if (err.kind === 'not_found') return new ScimError(404, undefined, err.message);
    if (err.kind === 'conflict') return new ScimError(409, 'uniqueness', err.message);
    return new ScimError(400, 'invalidValue', err.message);
  }
  return undefined;
}

export function scimErrorBody(err: ScimError): Record<string, unknown> {
  // RFC 7644 writes status as a string.
  return { schemas: [ERROR_SCHEMA], status: String(err.status), ...(err.scimType ? { scimType: err.scimType } : {}), detail: err.detail };
}
