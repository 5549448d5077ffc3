import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { whenClosed } from '../../src/wire/responseClosed';

/**
 * whenClosed (src/wire/responseClosed.ts), which the sharing of identical answers and the ingest and OTLP body budgets
 * listen with: Node emits a response's `close` once, so a handler that comes to listen after its client left must be
 * told at once, and one that listens before is told when it leaves.
 */
async function serverSeeing(handle: (res: http.ServerResponse, clientGone: Promise<void>) => Promise<void>): Promise<void> {
  let gone: () => void = () => undefined;
  const clientGone = new Promise<void>((resolve) => (gone = resolve));
  let handled: Promise<void> = Promise.resolve();
  const server = http.createServer((_req, res) => void (handled = handle(res, clientGone)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const request = http.get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' });
  request.on('error', () => undefined);
  request.on('socket', (socket) => socket.on('connect', () => setTimeout(() => request.destroy(), 50)));
  request.on('close', () => gone());
  await clientGone;
  await new Promise((r) => setTimeout(r, 200));
  await handled;
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

test('a handler that listens after the client left is told at once; a plain late listener never is', async () => {
  const told: string[] = [];
  await serverSeeing(async (res, clientGone) => {
    await clientGone;
    await new Promise((r) => setTimeout(r, 100));
    res.once('close', () => told.push('late once'));
    whenClosed(res, () => told.push('whenClosed'));
  });
  expect(told).toEqual(['whenClosed']);
});

test('a handler that listens before the client leaves is told when it leaves, once', async () => {
  const told: string[] = [];
  await serverSeeing(async (res) => {
    whenClosed(res, () => told.push('whenClosed'));
    expect(told).toEqual([]);
  });
  expect(told).toEqual(['whenClosed']);
});
