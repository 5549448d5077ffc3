import http from 'node:http';

export interface UploadAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A POST to a listening server whose body is sent piece by piece, as a slow sender sends it. */
export interface Upload {
  /** The answer, whenever it comes: before the body is all sent, if the server answers that early. */
  answer: Promise<UploadAnswer>;
  /** Resolves once the connection is closed (by the server, or by destroy()). */
  closed: Promise<void>;
  /** Sends the next piece of the body. */
  write(piece: string | Buffer): Promise<void>;
  /** Whether the whole body has been sent (end() called). */
  readonly ended: boolean;
  end(): void;
  destroy(): void;
}

export interface UploadOptions {
  /** Declared length; without it the body is sent chunked (Transfer-Encoding: chunked). */
  contentLength?: number;
  /** The client's own address (127.0.0.x), so the server sees several clients. */
  localAddress?: string;
}

/** Opens the request and sends its head at once; the body follows with write(). */
export function startUpload(origin: string, path: string, headers: Record<string, string>, options: UploadOptions = {}): Upload {
  const url = new URL(path, origin);
  const request = http.request({
    method: 'POST',
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    headers: { ...headers, ...(options.contentLength === undefined ? {} : { 'Content-Length': String(options.contentLength) }) },
    localAddress: options.localAddress,
    agent: false,
  });
  let answered = false;
  const answer = new Promise<UploadAnswer>((resolve, reject) => {
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    // Once answered, the server closing the connection under an unsent body is what is asked of it.
    request.on('error', (err) => (answered ? undefined : reject(err)));
  });
  // An upload given up before its answer (destroy()) is no failure of the test that gave it up.
  answer.catch(() => undefined);
  const closed = new Promise<void>((resolve) => request.on('close', () => resolve()));
  request.flushHeaders();
  return {
    answer,
    closed,
    write: (piece) => new Promise<void>((resolve) => request.write(piece, () => resolve())),
    get ended() {
      return request.writableEnded;
    },
    end: () => request.end(),
    destroy: () => request.destroy(),
  };
}
