/**
 * The fake provider of a history row, a process of its own (so that its work is not the bench's, and the importer
 * and the floor both call it over HTTP as they would call the provider): `node dist/scripts/bench/history/fakeServer.js`
 * with PORT, HISTORY_PROVIDER and HISTORY_WORLD (the World as JSON). Answers GET /healthz for the bench's start-up
 * check, every other request as the provider's API would (providers.ts), each answer generated when asked.
 */
import http from 'node:http';
import { fakeApiOf, HistoryProviderId } from './providers';
import type { World } from './world';

const provider = process.env.HISTORY_PROVIDER as HistoryProviderId;
const world = JSON.parse(process.env.HISTORY_WORLD ?? 'null') as World | null;
const port = Number(process.env.PORT);
if (!provider || !world || !port) throw new Error('fakeServer needs PORT, HISTORY_PROVIDER and HISTORY_WORLD');

const api = fakeApiOf(provider, world);
const base = `http://127.0.0.1:${port}`;
let requests = 0;

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', base);
  if (url.pathname === '/healthz') return void res.writeHead(200).end('ok');
  requests++;
  // A request's body (Slack's form posts) is read whole before answering, as a server would.
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const body = Buffer.concat(chunks).toString('utf8');
      if (body && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        new URLSearchParams(body).forEach((value, name) => url.searchParams.set(name, value));
      }
      const answer = api({ method: req.method ?? 'GET', url, headers: req.headers, body }, base);
      // What it could not answer is a fault of the fake or the row, worth seeing when the import fails.
      if (answer.status >= 400) process.stderr.write(`fake ${provider}: ${answer.status} for ${req.method} ${req.url}\n`);
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers }).end(JSON.stringify(answer.body));
    } catch (err) {
      process.stderr.write(`fake ${provider}: ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}\n`);
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"fake failed"}');
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  process.stderr.write(`fake ${provider}: ${requests} requests answered\n`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
