/**
 * A provider's fake API (providers.ts) over HTTP: what fakeServer.ts serves in a process of its own, and what the
 * fakes' test (test/operating/benchHistoryFakes.test.ts) reads with the importers themselves. Answers GET /healthz
 * for the bench's start-up check, every other request as the provider's API would, each answer generated when asked.
 */
import http from 'node:http';
import type { FakeApi } from './world';

export function fakeHttpServer(name: string, api: FakeApi): http.Server & { requests: () => number } {
  let requests = 0;
  const server = http.createServer((req, res) => {
    const base = `http://${req.headers.host ?? '127.0.0.1'}`;
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/healthz') return void res.writeHead(200).end('ok');
    requests++;
    // A request's body (Slack's form posts, GitHub's GraphQL queries) is read whole before answering, as a server would.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = Buffer.concat(chunks).toString('utf8');
        if (body && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
          new URLSearchParams(body).forEach((value, field) => url.searchParams.set(field, value));
        }
        const answer = api({ method: req.method ?? 'GET', url, headers: req.headers, body }, base);
        // What it could not answer is a fault of the fake or the row, worth seeing when the import fails.
        if (answer.status >= 400) process.stderr.write(`fake ${name}: ${answer.status} for ${req.method} ${req.url}\n`);
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers }).end(JSON.stringify(answer.body));
      } catch (err) {
        process.stderr.write(`fake ${name}: ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}\n`);
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"fake failed"}');
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return Object.assign(server, { requests: () => requests });
}
