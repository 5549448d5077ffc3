import zlib from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DomainError, invalid } from '../errors';
import { BodyBudget } from '../wire/bodyBudget';
import { whenClosed } from '../wire/responseClosed';

const KB = 1024;
const MB = 1024 * KB;

export interface BodyLimit {
  bytes: number;
  /** Whose limit it is: the provider's own, or the operator's INGEST_BODY_LIMIT_KB when that is lower. */
  set: { provider: string } | 'INGEST_BODY_LIMIT_KB';
}

/**
 * A delivery's limit, known before any body is read: the largest body its provider sends (its webhook's
 * `bodyLimitBytes`: its documented cap where it has one, else 1 MB; docs/ingest.md#what-a-body-may-cost), never
 * more than INGEST_BODY_LIMIT_KB.
 */
export function bodyLimitOf(provider: string, providerBytes: number, configuredBytes: number): BodyLimit {
  return providerBytes < configuredBytes ? { bytes: providerBytes, set: { provider } } : { bytes: configuredBytes, set: 'INGEST_BODY_LIMIT_KB' };
}

const tooLargeMessage = ({ bytes, set }: BodyLimit) =>
  set === 'INGEST_BODY_LIMIT_KB'
    ? `The body is larger than ${bytes} bytes (INGEST_BODY_LIMIT_KB)`
    : `The body is larger than ${bytes} bytes (${inUnits(bytes)}), the limit of /ingest/${set.provider} deliveries`;

const inUnits = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / KB} KB`);

/**
 * Bodies held at once per process: twice the largest one. Parsed, a body takes several times its size; two
 * maximum-size deliveries at once were measured within a 128 MB heap. One client (by address, `req.ip`, which
 * honours TRUST_PROXY) holds at most one largest body: half, so another's delivery still fits. A delivery that does
 * not fit waits up to BODY_WAIT_MS (GitHub gives up after 10 s), then gets 503 with Retry-After.
 */
const BODY_BUDGET_FACTOR = 2;
const BODY_WAIT_MS = 8_000;

/** The budget of bodies held at once by every ingest route of the process. */
export const ingestBodyBudget = (bodyLimitBytes: number) => new BodyBudget(BODY_BUDGET_FACTOR * bodyLimitBytes, bodyLimitBytes);

/**
 * Reads a delivery's raw body (signatures cover its bytes) into `req.body` within its provider's limit: 413 from the
 * declared length before a byte is read, else as soon as the bytes read pass it. A body holds its declared length
 * of the budget (waited for up to BODY_WAIT_MS), and whatever it reads beyond that (a chunked or compressed body)
 * as it arrives: taken at once, or the delivery is 503. Refused before its end, the rest of a body is not read
 * (the ingest error handler closes the connection).
 */
export function readRawBody(budget: BodyBudget, limitOf: (req: Request) => BodyLimit): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const limit = limitOf(req);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit.bytes) return next(tooLarge(limit));
    const holder = req.ip ?? 'unknown';
    // Listening before the wait: a client that leaves while queued must not keep its share once granted.
    const releases: (() => void)[] = [];
    let closed = false;
    whenClosed(res, () => {
      closed = true;
      releases.splice(0).forEach((release) => release());
    });
    const keep = (release: () => void) => (closed ? release() : releases.push(release));
    if (declared > 0) {
      const release = await budget.reserve(declared, BODY_WAIT_MS, holder);
      if (release) keep(release);
      if (closed) return;
      if (!release) return next(busy('Too many large deliveries are being read at once; retry in a few seconds'));
    }
    let holding = declared;
    try {
      req.body = await readBody(req, limit, (size) => {
        if (size <= holding) return;
        const more = budget.take(size - holding, holder);
        if (!more) throw busy('Too many deliveries are being read at once to read more of this one; retry in a few seconds');
        keep(more);
        holding = size;
      });
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The body's bytes, decoded as its Content-Encoding says; `onRead` is told the size so far after each chunk and may refuse. */
async function readBody(req: Request, limit: BodyLimit, onRead: (size: number) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const source = decoded(req);
  try {
    for await (const chunk of source.chunks) {
      size += chunk.length;
      if (size > limit.bytes) throw tooLarge(limit);
      onRead(size);
      chunks.push(chunk);
    }
  } catch (err) {
    throw err instanceof DomainError ? err : unreadable(err);
  } finally {
    source.stop();
  }
  return Buffer.concat(chunks, size);
}

/**
 * The request's bytes as sent, or inflated (gzip, deflate). Left early, the request is paused, not destroyed, so
 * the refusal can still be answered.
 */
function decoded(req: Request): { chunks: AsyncIterable<Buffer>; stop: () => void } {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return { chunks: req.iterator({ destroyOnReturn: false }), stop: () => {} };
  const inflate = encoding === 'gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : undefined;
  if (!inflate) throw new DomainError('unsupported_media_type', 'Send the body uncompressed or gzip/deflate-encoded');
  const abort = (err: Error) => inflate.destroy(err);
  req.once('error', abort);
  req.pipe(inflate);
  return {
    chunks: inflate,
    stop: () => {
      req.off('error', abort);
      req.unpipe(inflate);
      inflate.destroy();
    },
  };
}

/** A body that ended before its end (the client left) or does not inflate. */
function unreadable(err: unknown): DomainError {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  if (typeof code === 'string' && code.startsWith('Z_')) return invalid('The body is not valid gzip/deflate data, as its Content-Encoding says');
  return invalid('The request was aborted before its body arrived');
}

const tooLarge = (limit: BodyLimit) => new DomainError('too_large', tooLargeMessage(limit));

const busy = (message: string) => new DomainError('unavailable', message, { retryAfterSeconds: BODY_WAIT_MS / 1000 });
