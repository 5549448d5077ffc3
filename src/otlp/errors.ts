import type { Request, Response } from 'express';
import { domainErrorOf, ErrorKind } from '../errors';
import { isRecord } from '../wire/record';
import { encodeMessage, statusType } from './messages';

/**
 * The OTLP surface's one error mapping (OTLP/HTTP "Failures"): an HTTP status the exporters act on (400 is never
 * retried; 429 and 503 are, after Retry-After) and a `google.rpc.Status` body in the request's encoding.
 */
export interface OtlpFailure {
  status: number;
  /** google.rpc.Code */
  code: number;
  message: string;
  retryAfterSeconds?: number;
}

const GRPC = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, UNAUTHENTICATED: 16 };

const BY_KIND: Record<ErrorKind, Pick<OtlpFailure, 'status' | 'code'>> = {
  invalid: { status: 400, code: GRPC.INVALID_ARGUMENT },
  unauthenticated: { status: 401, code: GRPC.UNAUTHENTICATED },
  forbidden: { status: 403, code: GRPC.PERMISSION_DENIED },
  not_found: { status: 404, code: GRPC.NOT_FOUND },
  conflict: { status: 503, code: GRPC.UNAVAILABLE },
  too_large: { status: 413, code: GRPC.RESOURCE_EXHAUSTED },
  unsupported_media_type: { status: 415, code: GRPC.INVALID_ARGUMENT },
  rate_limited: { status: 429, code: GRPC.RESOURCE_EXHAUSTED },
  unavailable: { status: 503, code: GRPC.UNAVAILABLE },
};

export const methodNotAllowed = (message: string): OtlpFailure => ({ status: 405, code: GRPC.UNIMPLEMENTED, message });
export const serverFault: OtlpFailure = { status: 500, code: GRPC.INTERNAL, message: 'Internal server error; the batch was not stored' };

export const tooLargeMessage = (limitBytes: number) =>
  `The body is larger than ${limitBytes} bytes (OTLP_BODY_LIMIT_KB), before or after decompression; export smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, or a shorter export interval)`;

/** express.raw's own refusals; its inflation failures carry zlib's error code. */
function fromParser(err: unknown, bodyLimitBytes: number): OtlpFailure | undefined {
  if (!isRecord(err)) return undefined;
  const { type, code } = err;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return { ...BY_KIND.invalid, message: 'The body is not valid gzip; send it gzip-compressed as Content-Encoding says, or without that header' };
  }
  if (type === 'entity.too.large') return { ...BY_KIND.too_large, message: tooLargeMessage(bodyLimitBytes) };
  if (type === 'request.aborted') return { ...BY_KIND.invalid, message: 'The request was aborted before its body arrived' };
  return undefined;
}

/** What the sender sees for anything thrown; undefined for our own faults (logged, then answered as a 500). */
export function toOtlpFailure(err: unknown, bodyLimitBytes: number): OtlpFailure | undefined {
  const domain = domainErrorOf(err);
  if (domain) return { ...BY_KIND[domain.kind], message: domain.message, retryAfterSeconds: domain.detail.retryAfterSeconds };
  return fromParser(err, bodyLimitBytes);
}

/** A Status in protobuf when the request was protobuf, else in OTLP/JSON (the encoding a client can read anyway). */
export function statusBody(failure: OtlpFailure, protobuf: boolean): { contentType: string; body: Buffer } {
  return {
    contentType: protobuf ? 'application/x-protobuf' : 'application/json',
    body: encodeMessage(statusType, { code: failure.code, message: failure.message }, !protobuf),
  };
}

/**
 * Protobuf whenever the request declared a protobuf body, whatever was refused about it (its Content-Encoding, its
 * method, its path): the exporter reads the Status in the encoding it sent, not only once the request got far.
 */
const sentProtobuf = (req: Request) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === 'application/x-protobuf';

export function sendOtlpFailure(req: Request, res: Response, failure: OtlpFailure): void {
  if (failure.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(failure.retryAfterSeconds))));
  const { contentType, body } = statusBody(failure, sentProtobuf(req));
  res.status(failure.status).type(contentType).end(body);
}
