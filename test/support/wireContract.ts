import http from 'node:http';
import zlib from 'node:zlib';
import { appRouter } from '../../src/procedures';
import { API_VERSION, buildOpenApiDocument } from '../../src/openapi';
import { createContract } from './contract';

/**
 * Every response this process's servers send under /v1 (supertest, the typed clients, the browser) is checked
 * against the OpenAPI document as it leaves, so the document cannot drift from the wire. Jest runs several
 * test files in one worker and node's `http` is shared between them: the patch is installed once, and each
 * test file points it at a sink of its own.
 */

interface Sink {
  check: (res: Parameters<ReturnType<typeof createContract>['check']>[0]) => string[];
  violations: string[];
  checked: number;
}

const SINK = Symbol.for('platform.wireContract.sink');
const PATCHED = Symbol.for('platform.wireContract.patched');
type Patched = http.ServerResponse & { [SINK]?: Sink; [PATCHED]?: boolean };

const DOCUMENT_PATH = '/v1/openapi.json';

/** The body as the client reads it: compressed responses are decoded first. */
function decoded(body: Buffer, encoding: unknown): string {
  if (body.length === 0) return '';
  switch (encoding) {
    case 'gzip':
      return zlib.gunzipSync(body).toString('utf8');
    case 'br':
      return zlib.brotliDecompressSync(body).toString('utf8');
    case 'deflate':
      return zlib.inflateSync(body).toString('utf8');
    default:
      return body.toString('utf8');
  }
}

function install(): void {
  const proto = http.ServerResponse.prototype as Patched;
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const chunks = new WeakMap<http.ServerResponse, Buffer[]>();
  const collect = (res: http.ServerResponse, chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const list = chunks.get(res) ?? [];
    list.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    chunks.set(res, list);
  };
  const urlOf = (res: http.ServerResponse) => {
    const req = res.req as (http.IncomingMessage & { originalUrl?: string }) | undefined;
    return req?.originalUrl ?? req?.url ?? '';
  };
  const watched = (res: http.ServerResponse) => {
    const url = urlOf(res);
    return url.startsWith('/v1') && !url.startsWith(DOCUMENT_PATH);
  };

  const write = proto.write;
  proto.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (watched(this)) collect(this, chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof proto.write;

  const end = proto.end;
  proto.end = function (this: Patched, ...args: unknown[]) {
    const sink = (http.ServerResponse.prototype as Patched)[SINK];
    if (sink && watched(this) && !this.writableEnded) {
      collect(this, args[0], args[1]);
      const response = {
        method: this.req?.method ?? 'GET',
        url: urlOf(this),
        status: this.statusCode,
        headers: this.getHeaders(),
        body: decoded(Buffer.concat(chunks.get(this) ?? []), this.getHeader('content-encoding')),
      };
      sink.checked += 1;
      sink.violations.push(...sink.check(response));
    }
    return (end as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof proto.end;
}

/** Starts checking this test file's responses; returns what has been checked and found so far. */
function startWireContract(): Sink {
  install();
  const sink: Sink = { check: createContract(buildOpenApiDocument(appRouter, API_VERSION)).check, violations: [], checked: 0 };
  (http.ServerResponse.prototype as Patched)[SINK] = sink;
  return sink;
}

let current: Sink | undefined;

/** The sink of the running test file (for the test that shows the check is live). */
export function wireContract(): Sink {
  current ??= startWireContract();
  return current;
}
