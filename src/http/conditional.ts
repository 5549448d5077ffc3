import type { NextFunction, Request, Response } from 'express';
import etag from 'etag';
import fresh from 'fresh';

/**
 * Conditional GET for /v1 (docs/api.md#http-conventions): every 200 carries a strong ETag of its body and
 * `Cache-Control: private, no-cache`; when `If-None-Match` matches, the answer is a 304 with the same headers
 * and no body, and `onNotModified` runs first (it gives the request's rate-limit point back).
 *
 * It sits where the final body is known: the REST façade writes its whole JSON body with one `res.end`.
 */
export function conditionalGet(onNotModified: (res: Response) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.setHeader('Cache-Control', 'private, no-cache');
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (res.statusCode !== 200 || !(typeof chunk === 'string' || Buffer.isBuffer(chunk))) return end(chunk, ...rest);
      res.setHeader('ETag', etag(chunk));
      // Only If-None-Match decides: fetch() adds `Cache-Control: no-cache` to every conditional request, which
      // tells caches to revalidate with us, not us to refuse a 304 (`fresh` alone would).
      if (!fresh({ 'if-none-match': req.headers['if-none-match'] }, { etag: res.getHeader('ETag') })) return end(chunk, ...rest);
      res.statusCode = 304;
      res.removeHeader('Content-Length');
      onNotModified(res)
        .catch(() => undefined) // the point stays spent; the 304 is still right
        .finally(() => end());
      return res;
    }) as Response['end'];
    next();
  };
}
