/**
 * The fake provider of a history row, a process of its own (so that its work is not the bench's, and the importer
 * and the floor both call it over HTTP as they would call the provider): `node dist/scripts/bench/history/fakeServer.js`
 * with PORT, HISTORY_PROVIDER and HISTORY_WORLD (the World as JSON).
 */
import { fakeHttpServer } from './fakeHttp';
import { fakeApiOf, HistoryProviderId } from './providers';
import type { World } from './world';

const provider = process.env.HISTORY_PROVIDER as HistoryProviderId;
const world = JSON.parse(process.env.HISTORY_WORLD ?? 'null') as World | null;
const port = Number(process.env.PORT);
if (!provider || !world || !port) throw new Error('fakeServer needs PORT, HISTORY_PROVIDER and HISTORY_WORLD');

const server = fakeHttpServer(provider, fakeApiOf(provider, world));
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  process.stderr.write(`fake ${provider}: ${server.requests()} requests answered\n`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
