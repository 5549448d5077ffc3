import { domainErrorOf, ErrorKind } from '../errors';
import { isRecord } from '../wire/record';

/** RFC 7644 §3.12 `scimType` values (and docs/scim.md's list). */
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

/**
 * A SCIM error response: the status, the `scimType` where RFC 7644 names one, and a detail saying what to fix.
 * Thrown by this surface's own parsing, where the scimType is the point (a path, a PATCH's mutability).
 */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    readonly detail: string,
    /** Sent as Retry-After (503: a race lost every time, the database out of reach). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

const ANSWER_OF: Record<ErrorKind, [status: number, scimType?: ScimType]> = {
  invalid: [400, 'invalidValue'],
  unauthenticated: [401],
  forbidden: [403],
  not_found: [404],
  conflict: [409, 'uniqueness'],
  too_large: [413],
  unsupported_media_type: [415],
  rate_limited: [429],
  unavailable: [503],
};

/** express.json's own refusals: malformed JSON and bodies over the cap. */
function fromParser(err: unknown): ScimError | undefined {
  if (!isRecord(err)) return undefined;
  const { type } = err;
  if (type === 'entity.parse.failed') return new ScimError(400, 'invalidSyntax', 'The body is not valid JSON');
  if (type === 'entity.too.large') return new ScimError(413, undefined, `The body is larger than ${err.limit} bytes (SCIM_BODY_LIMIT_KB)`);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new ScimError(415, undefined, 'Send the body as UTF-8 JSON');
  return undefined;
}

/** The SCIM surface's one mapping from what went wrong to its error format; undefined for our own faults. */
export function toScimError(err: unknown): ScimError | undefined {
  if (err instanceof ScimError) return err;
  const domain = domainErrorOf(err);
  if (domain) {
    const [status, scimType] = domain.detail.field === 'filter' ? [400, 'invalidFilter' as const] : ANSWER_OF[domain.kind];
    return new ScimError(status, scimType, domain.message, domain.detail.retryAfterSeconds);
  }
  return fromParser(err);
}

export function scimErrorBody(err: ScimError): Record<string, unknown> {
  // RFC 7644 writes status as a string.
  return { schemas: [ERROR_SCHEMA], status: String(err.status), ...(err.scimType ? { scimType: err.scimType } : {}), detail: err.detail };
}
