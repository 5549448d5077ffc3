import express, { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../logger';
import type { RateLimitDecision, RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitMessage, setRateLimitHeaders } from '../rateLimit/headers';
import type { OtlpAuthenticator } from '../auth/otlpAuthenticator';
import type { TelemetrySender, TelemetryWriter } from '../services/telemetry/writer';
import { BodyBudget } from '../wire/bodyBudget';
import { whenClosed } from '../wire/responseClosed';
import { DomainError, notFound } from '../errors';
import { methodNotAllowed, sendOtlpFailure, serverFault, toOtlpFailure, tooLargeMessage } from './errors';
import { noteFailure } from '../observability/responseFailures';
import { readRequest, OTLP_CONTENT_TYPES, OtlpContentType, OtlpRequest } from './requests';
import { encodeMessage, responseType, Signal } from './messages';

export interface OtlpDeps {
  authenticator: OtlpAuthenticator;
  telemetry: TelemetryWriter;
  /** Per token (failed authentications: per client IP). */
  limiter: RateLimiter;
  bodyLimitBytes: number;
  logger: Logger;
  /** Told the items (points, log records, spans) of each request taken: how many were accepted, how many rejected. */
  onReceived?: (signal: Signal, accepted: number, rejected: number) => void;
}

const SIGNALS: readonly Signal[] = ['metrics', 'logs', 'traces'];
/** The signal a path names, if it is one this endpoint takes. */
const signalOf = (name: unknown): Signal | undefined => SIGNALS.find((s) => s === name);

/** Bodies held at once per process (src/wire/bodyBudget.ts), and how long a request waits for its share. */
const BODY_BUDGET_FACTOR = 2;
const BODY_WAIT_MS = 5_000;
/** A gzip body's size once inflated is unknown until read: its share is this many times its compressed size. */
const GZIP_RESERVE_FACTOR = 8;

/** What the header checks leave for the handler that reads the body. */
interface Locals {
  contentType: OtlpContentType;
  sender: TelemetrySender;
}

/**
 * Telemetry in over OTLP/HTTP (docs/telemetry.md), a transport beside REST, SCIM and ingest: `POST /otlp/v1/metrics`,
 * `/otlp/v1/logs` and `/otlp/v1/traces`, protobuf or JSON, optionally gzip. Headers are checked (encoding, token,
 * limit) before a body is read; the body is limited after decompression too; the answer is the OTLP response
 * (with `partialSuccess` when anything was refused or dropped) once the change is committed.
 */
export function otlpRouter(deps: OtlpDeps): Router {
  const router = Router();
  const budget = new BodyBudget(BODY_BUDGET_FACTOR * deps.bodyLimitBytes);
  router.all('/v1/:signal', (req: Request, res: Response, next: NextFunction) => {
    if (!signalOf(req.params.signal)) return next(unknownRoute(req));
    if (req.method === 'POST') return next();
    res.setHeader('Allow', 'POST');
    sendOtlpFailure(req, res, methodNotAllowed(`${req.method} is not allowed here; OTLP exporters POST to ${req.baseUrl}/v1/${req.params.signal}`));
  });
  router.post(
    '/v1/:signal',
    (req: Request, res: Response<unknown, Locals>, next: NextFunction) => {
      try {
        res.locals.contentType = contentTypeOf(req);
        next();
      } catch (err) {
        next(err);
      }
    },
    async (req: Request, res: Response<unknown, Locals>, next: NextFunction) => {
      try {
        res.locals.sender = await admitted(deps, req, res);
        next();
      } catch (err) {
        next(err);
      }
    },
    async (req: Request, res: Response, next: NextFunction) => {
      const declared = Number(req.headers['content-length'] ?? deps.bodyLimitBytes);
      if (declared > deps.bodyLimitBytes) return next(new DomainError('too_large', tooLargeMessage(deps.bodyLimitBytes)));
      const share = Number.isFinite(declared) ? (isGzip(req) ? declared * GZIP_RESERVE_FACTOR : declared) : deps.bodyLimitBytes;
      let release: (() => void) | undefined;
      let closed = false;
      whenClosed(res, () => {
        closed = true;
        release?.();
      });
      release = await budget.reserve(Math.min(share, deps.bodyLimitBytes), BODY_WAIT_MS);
      if (closed) return release?.();
      if (!release) return next(new DomainError('unavailable', 'Too many large batches are being read at once; retry in a few seconds', { retryAfterSeconds: BODY_WAIT_MS / 1000 }));
      next();
    },
    // Inflated here, so the limit applies to the decompressed bytes as they stream in: a gzip bomb stops at it.
    express.raw({ type: () => true, limit: deps.bodyLimitBytes, inflate: true }),
    async (req: Request, res: Response<unknown, Locals>, next: NextFunction) => {
      try {
        const signal = signalOf(req.params.signal);
        if (!signal) return next(unknownRoute(req));
        const { contentType, sender } = res.locals;
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const request = readRequest(signal, contentType, body);
        const raw = { signal, bytes: body, contentType };
        const receipt =
          request.signal === 'metrics'
            ? await deps.telemetry.receiveMetrics(sender, request.batch, raw)
            : request.signal === 'logs'
              ? await deps.telemetry.receiveLogs(sender, request.batch, raw)
              : await deps.telemetry.receiveTraces(sender, request.spans, raw);
        const json = contentType === 'application/json';
        res.status(200).type(contentType).end(encodeMessage(responseType(signal), responseFor(signal, receipt), json));
        deps.onReceived?.(signal, Math.max(0, itemsIn(request) - receipt.rejected), receipt.rejected);
      } catch (err) {
        next(err);
      }
    },
  );
  router.use((req: Request, _res: Response, next: NextFunction) => next(unknownRoute(req)));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = toOtlpFailure(err, deps.bodyLimitBytes);
    if (!known) deps.logger.error({ err, reqId: req.id }, 'OTLP request failed');
    noteFailure(res, err);
    sendOtlpFailure(req, res, known ?? serverFault);
  });
  return router;
}

/** The items a request carried: those read, and those the transport refused while reading (counted in the batch). */
function itemsIn(request: OtlpRequest): number {
  if (request.signal === 'traces') return request.spans;
  const refused = request.batch.refused.reduce((n, r) => n + r.count, 0);
  return (request.signal === 'metrics' ? request.batch.points.length : request.batch.records.length) + refused;
}

const REJECTED_FIELD: Record<Signal, string> = { metrics: 'rejectedDataPoints', logs: 'rejectedLogRecords', traces: 'rejectedSpans' };

/** Full success is an empty response; anything refused or dropped is a `partialSuccess` saying what and why. */
function responseFor(signal: Signal, receipt: { rejected: number; message: string }): Record<string, unknown> {
  if (!receipt.rejected && !receipt.message) return {};
  return { partialSuccess: { [REJECTED_FIELD[signal]]: receipt.rejected, errorMessage: receipt.message } };
}

const isGzip = (req: Request) => (req.headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';

function contentTypeOf(req: Request): OtlpContentType {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const known = OTLP_CONTENT_TYPES.find((t) => t === type);
  if (!known) {
    throw new DomainError('unsupported_media_type', `Send application/x-protobuf or application/json (got ${type || 'no Content-Type'}); set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or http/json`);
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    throw new DomainError('unsupported_media_type', `Content-Encoding ${encoding} is not accepted; send gzip (OTEL_EXPORTER_OTLP_COMPRESSION=gzip) or no encoding`);
  }
  return known;
}

/** The token, then its limit; a failed authentication costs the client IP a point instead. */
async function admitted(deps: OtlpDeps, req: Request, res: Response): Promise<TelemetrySender> {
  let sender: TelemetrySender;
  try {
    sender = await deps.authenticator.authenticate(req.headers.authorization);
  } catch (err) {
    const decision = await deps.limiter.consume(`ip:${req.ip}`);
    setRateLimitHeaders(res, decision);
    throw decision.allowed ? err : rateLimited(decision);
  }
  const decision = await deps.limiter.consume(`otlp:${sender.tokenId}`);
  setRateLimitHeaders(res, decision);
  if (!decision.allowed) throw rateLimited(decision);
  return sender;
}

export const rateLimited = (d: RateLimitDecision) => new DomainError('rate_limited', rateLimitMessage(d, 'requests'), { retryAfterSeconds: d.retryAfterSeconds });

const unknownRoute = (req: Request) =>
  notFound(`No OTLP endpoint ${req.method} ${req.originalUrl.split('?')[0]}; exporters send to POST /otlp/v1/metrics, /otlp/v1/logs or /otlp/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT=<this service>/otlp)`);
