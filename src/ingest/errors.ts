import type { Response } from 'express';
import type { ErrorEnvelope } from '../wire/envelopes';

/**
 * The ingest surface's errors: the spec's error envelope (`{"status":"error","error":{"code","message"}}`), with
 * the codes a webhook sender can meet. GitHub and GitLab show the body in their delivery logs, so every message
 * says what to fix.
 */
export const INGEST_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type IngestErrorCode = keyof typeof INGEST_ERROR_STATUS;

export class IngestError extends Error {
  constructor(
    readonly code: IngestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IngestError';
  }

  get status(): number {
    return INGEST_ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new IngestError('VALIDATION_ERROR', message);

export function sendIngestError(res: Response, err: IngestError): void {
  res.status(err.status).json({ status: 'error', error: { code: err.code, message: err.message } } as ErrorEnvelope);
}
