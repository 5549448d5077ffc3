import { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { accessKey } from '../access/principal';

/**
 * Identical concurrent requests answered once (docs/performance.md#identical-requests-answered-once). A dashboard
 * opened by many, or a client retrying, asks for the same figures many times at once: the figures are computed once
 * (MetricsService), and with this the answer is too. The first request (the leader) runs as usual and its response
 * is recorded as it goes to the socket: its status, the headers it set, and the body compression wrote. Requests
 * that arrive while it runs, for the same procedure and input from a caller of the same access, wait for it and
 * send those bytes: no output validation, serialisation, ETag or compression of their own.
 *
 * Only what cannot differ between them is shared. The key holds the method and URL (procedure and input), the
 * caller's access (accessKey: who, and what they may reach), the Accept-Encoding asked, and the service's
 * generation of data versions (a request that arrives after a change this process knows of never joins an
 * answer computed before it). Each request keeps its own headers (request id, rate-limit points, which the gate
 * charged it before): only the headers the leader's answer set after that point are copied. A leader that
 * answers anything but 200, or whose client goes away, is shared with nobody: those waiting run on their own.
 */

/** What a leader sent: the headers its answer set, and the body as written to the socket (compressed or not). */
interface Answer {
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** A leader's response being recorded: the headers as they were when it started, and the body's chunks. */
interface Recording {
  headersBefore: OutgoingHttpHeaders;
  chunks: Buffer[];
}

const recordings = new WeakMap<ServerResponse, Recording>();

type Chunk = string | Buffer | Uint8Array;
type Callback = (error?: Error | null) => void;

function bufferOf(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return undefined;
}

/**
 * Mounted before compression, so that what it sees is what goes to the socket: a leader's chunks are kept, every
 * other response passes through untouched.
 */
export function recordAnswers(_req: Request, res: Response, next: NextFunction): void {
  const write = res.write;
  const end = res.end;
  res.write = function (this: Response, chunk: Chunk, encoding?: BufferEncoding | Callback, callback?: Callback) {
    const body = recordings.get(res) && bufferOf(chunk, encoding);
    if (body) recordings.get(res)!.chunks.push(body);
    return write.call(this, chunk, encoding as BufferEncoding, callback);
  } as Response['write'];
  res.end = function (this: Response, chunk?: Chunk | Callback, encoding?: BufferEncoding | Callback, callback?: Callback) {
    const body = recordings.get(res) && bufferOf(chunk, encoding);
    if (body) recordings.get(res)!.chunks.push(body);
    return end.call(this, chunk as Chunk, encoding as BufferEncoding, callback);
  } as Response['end'];
  next();
}

export interface SharingOptions {
  /** Whether the request is for procedures whose answers may be shared (their `sharedAnswer` declaration). */
  shareable(req: Request): boolean;
  /** Rises whenever this process learns of a change to the data (DataVersions.generation). */
  dataGeneration(): number;
}

/** The request's key, or undefined when it must run on its own. */
function keyOf(req: Request, res: Response, options: SharingOptions): string | undefined {
  // HEAD is served as GET (app.ts) but sends no body; a conditional request gets its own 304.
  if (req.method !== 'GET' || res.locals.head || req.headers['if-none-match'] !== undefined) return undefined;
  const context = req.apiContext;
  const principal = context?.principal ?? context?.settings?.principal;
  if (!principal || context?.gateError !== undefined || !options.shareable(req)) return undefined;
  return JSON.stringify([req.originalUrl, req.headers['accept-encoding'] ?? '', options.dataGeneration(), accessKey(principal)]);
}

/** Mounted after the request gate: the caller is known, and charged, before a request may join another. */
export function shareIdenticalRequests(options: SharingOptions) {
  const leaders = new Map<string, Promise<Answer | undefined>>();
  return (req: Request, res: Response, next: NextFunction) => {
    const key = keyOf(req, res, options);
    // A client gone already (while its token was checked, say) leads nothing: its close would never settle the others.
    if (key === undefined || res.closed) return next();
    const leader = leaders.get(key);
    if (leader) {
      leader.then((answer) => (answer ? send(res, answer) : next())).catch(next);
      return;
    }
    const recording: Recording = { headersBefore: { ...res.getHeaders() }, chunks: [] };
    recordings.set(res, recording);
    let settle: (answer: Answer | undefined) => void = () => undefined;
    const answer = new Promise<Answer | undefined>((resolve) => (settle = resolve));
    leaders.set(key, answer);
    const done = (shared: Answer | undefined) => {
      if (leaders.get(key) === answer) leaders.delete(key);
      recordings.delete(res);
      settle(shared);
    };
    res.once('finish', () => done(res.statusCode === 200 ? answerOf(res, recording) : undefined));
    res.once('close', () => done(undefined));
    next();
  };
}

/** The leader's answer: the headers it set or changed after it started, and its body. */
function answerOf(res: Response, recording: Recording): Answer {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (name === 'content-length' || name === 'transfer-encoding') continue;
    if (String(recording.headersBefore[name]) !== String(value)) headers[name] = value;
  }
  return { headers, body: Buffer.concat(recording.chunks) };
}

/**
 * Sends a shared answer with Node's own writeHead and end, past every wrapper this response went through
 * (compression, the ETag, the REST error envelope): the bytes are final already.
 */
function send(res: Response, answer: Answer): void {
  if (res.headersSent || res.destroyed) return;
  Reflect.apply(ServerResponse.prototype.writeHead, res, [200, { ...answer.headers, 'content-length': answer.body.length }]);
  Reflect.apply(ServerResponse.prototype.end, res, [answer.body]);
}
