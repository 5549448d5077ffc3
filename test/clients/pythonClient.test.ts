import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientServices } from '../support/clientServices';
import { loadDocument } from '../../scripts/clients/document';
import { renderPython } from '../../scripts/clients/python';

/**
 * The official Python client (clients/python/), installed as a user would (`pip install`, offline: no index), then
 * run against the service on this run's backend: its own tests (`python3 -m unittest`, standard library only) call
 * every list, get and metric operation, page to the end of a list, meet each error code a request can cause, and
 * wait out a 429 of a second service limited to 3 requests a minute.
 */
const CLIENT = path.resolve(__dirname, '..', '..', 'clients', 'python');
const CLIENTS_DOC = path.resolve(__dirname, '..', '..', 'docs', 'clients.md');

// Python 3.9 or later with pip; a machine without them skips this file, saying so.
const HAS_PYTHON = spawnSync('python3', ['-c', 'import sys, pip; sys.exit(sys.version_info < (3, 9))']).status === 0;
if (!HAS_PYTHON) console.warn('pythonClient: no python3 (3.9 or later, with pip); the Python client tests are skipped.');
const testWithPython = HAS_PYTHON ? test : test.skip;

const services = clientServices();

/** `pip install --no-index` into a directory of its own: what the tests import is the installed package. */
function installed(): string {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-api-python-'));
  execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-index', '--disable-pip-version-check', '--target', target, CLIENT], {
    env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore', PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return target;
}

/** Python, run asynchronously: the service it calls answers from this very process. */
function python(args: string[], options: { cwd?: string; env: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('python3', args, { cwd: options.cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

testWithPython('python3 -m unittest: every operation, paging, each error code, a 429 waited out', async () => {
  const target = installed();
  expect(fs.existsSync(path.join(target, 'platform_api', 'client.py'))).toBe(true);
  // From the tests' own directory, so `platform_api` can only come from the installed copy.
  const result = await python(['-m', 'unittest', 'discover', '-s', '.', '-t', '.', '-v'], {
    cwd: path.join(CLIENT, 'tests'),
    env: { PYTHONPATH: target, ...(await services.environment()) },
  });
  // unittest reports on stderr.
  if (result.code !== 0) process.stdout.write(result.stderr);
  expect(result.stderr).toMatch(/^OK$/m);
  expect(result.code).toBe(0);
}, 150_000);

testWithPython('the Python example of docs/clients.md runs as written against the service', async () => {
  const example = /### Python[\s\S]*?```python\n([\s\S]*?)```/.exec(fs.readFileSync(CLIENTS_DOC, 'utf8'))?.[1];
  expect(example).toBeDefined();
  const run = await python(['-c', example!], { env: { PYTHONPATH: installed(), PLATFORM_API_URL: await services.main().listen(), PLATFORM_API_TOKEN: await services.main().token() } });
  expect(run.stderr).toBe('');
  expect(run.stdout).toMatch(/^Acme Corp: \d+ members$/m);
  expect(run.code).toBe(0);
});

test('the committed Python client is what the generator makes of the current document, the same each time', () => {
  const generated = renderPython(loadDocument());
  expect(renderPython(loadDocument())).toEqual(generated);
  // On failure: run `npm run client:generate` and commit clients/python/.
  for (const [file, content] of Object.entries(generated)) {
    expect([file, fs.readFileSync(path.resolve(__dirname, '..', '..', file), 'utf8') === content]).toEqual([file, true]);
  }
});
