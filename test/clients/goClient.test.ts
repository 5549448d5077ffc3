import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientServices } from '../support/clientServices';
import { loadDocument } from '../../scripts/clients/document';
import { HAS_GO, renderGo } from '../../scripts/clients/go';

/**
 * The official Go client (clients/go/) against the service on this run's backend: its own tests (`go test`,
 * standard library only, offline) call every list, get and metric operation, page to the end of a list, meet each
 * error code a request can cause, and wait out a 429 of a second service limited to 3 requests a minute. `.ci/run`
 * installs Go (Debian's golang-go); a machine without it skips this file, saying so.
 */
const CLIENT = path.resolve(__dirname, '..', '..', 'clients', 'go');
const CLIENTS_DOC = path.resolve(__dirname, '..', '..', 'docs', 'clients.md');
const GO_OK = HAS_GO && spawnSync('go', ['version']).status === 0;
if (!GO_OK && process.env.REQUIRE_GO !== '1') console.warn('goClient: no Go toolchain; the Go client tests are skipped. Install it with `apt-get install golang-go`.');
const testWithGo = GO_OK || process.env.REQUIRE_GO === '1' ? test : test.skip;

const services = clientServices();

/** Go, run asynchronously (the service it calls answers from this very process), offline: no proxy, no download. */
function go(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('go', args, { cwd, env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOTELEMETRY: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

testWithGo('go test: every operation, paging, each error code, a 429 waited out', async () => {
  const result = await go(['test', '-count=1', '-v', './...'], CLIENT, await services.environment());
  if (result.code !== 0) process.stdout.write(result.output);
  expect(result.output).not.toMatch(/--- SKIP/);
  expect(result.output).toMatch(/^ok\s/m);
  expect(result.code).toBe(0);
}, 180_000);

testWithGo('the Go example of docs/clients.md runs as written against the service', async () => {
  const example = /### Go[\s\S]*?```go\n([\s\S]*?)```/.exec(fs.readFileSync(CLIENTS_DOC, 'utf8'))?.[1];
  expect(example).toBeDefined();
  // A module of its own that uses the checkout's client, as a program outside this repository would.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-api-go-example-'));
  fs.writeFileSync(path.join(dir, 'main.go'), example!);
  fs.writeFileSync(path.join(dir, 'go.mod'), `module example\n\ngo 1.19\n\nrequire platform-api.example/clients/go v0.0.0\n\nreplace platform-api.example/clients/go => ${CLIENT}\n`);
  const run = await go(['run', '.'], dir, { PLATFORM_API_URL: await services.main().listen(), PLATFORM_API_TOKEN: await services.main().token() });
  expect(run.output).toMatch(/^Acme Corp: \d+ members$/m);
  expect(run.code).toBe(0);
}, 120_000);

testWithGo('the committed Go client is what the generator makes of the current document, the same each time', () => {
  const generated = renderGo(loadDocument());
  expect(renderGo(loadDocument())).toEqual(generated);
  // On failure: run `npm run client:generate` and commit clients/go/.
  for (const [file, content] of Object.entries(generated)) {
    expect([file, fs.readFileSync(path.resolve(__dirname, '..', '..', file), 'utf8') === content]).toEqual([file, true]);
  }
});
