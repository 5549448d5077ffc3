import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICES } from '../support/harness';
import { builtFile } from '../support/cli';

/**
 * docs/operating.md's fail-fast start: each misconfiguration starts the real process (`src/main.ts`, `scripts/worker.ts`)
 * and reads its exit code and what it printed. A refusal says what to set or check, in one message and without a
 * stack trace, and the process stops at once (or after the bounded wait for an unreachable database).
 */

const ROOT = path.resolve(__dirname, '..', '..');
const KEY = '11'.repeat(32);

interface Exit {
  code: number | null;
  stderr: string;
  ms: number;
}

/** Runs a script to its end (at most 60 s) with exactly this environment besides PATH and HOME. */
function run(script: string, env: Record<string, string>): Promise<Exit> {
  const started = Date.now();
  const sqlite = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fail-fast-')), 'platform.sqlite');
  const child = spawn(process.execPath, [builtFile(script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: sqlite, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - started });
    }),
  );
}

function expectRefusal(exit: Exit, message: RegExp) {
  expect(exit.stderr).toMatch(message);
  expect(exit.stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(exit.code).toBe(1);
}

const mysql = (database: string) => {
  const url = new URL(SERVICES.databaseUrl ?? 'mysql://root@127.0.0.1:3306/x');
  url.pathname = `/${database}`;
  return url.toString();
};

test('MySQL without SECRETS_KEY: the API and the worker refuse to start, saying how to make one', async () => {
  for (const script of ['src/main.ts', 'scripts/worker.ts']) {
    expectRefusal(await run(script, { DATABASE_URL: mysql('platform_unused') }), /SECRETS_KEY: required with DATABASE_URL.*openssl rand -hex 32/s);
  }
}, 60_000);

test('an unreachable database: a clear message after DATABASE_START_WAIT_S, exit code 1', async () => {
  // Port 1 on this machine: nothing listens, so every attempt is refused at once.
  const exit = await run('src/main.ts', { DATABASE_URL: 'mysql://root@127.0.0.1:1/platform', SECRETS_KEY: KEY, DATABASE_START_WAIT_S: '2' });
  expectRefusal(exit, /Could not reach MySQL 127\.0\.0\.1:1\/platform within 2 s \(DATABASE_START_WAIT_S\): .*ECONNREFUSED.*Check DATABASE_URL/);
  expect(exit.ms).toBeGreaterThanOrEqual(1_500);
}, 60_000);

const withMysql = SERVICES.databaseUrl ? test : test.skip;

withMysql('a database that does not exist, or a wrong password: refused at once, each saying what to fix', async () => {
  const missing = await run('src/main.ts', { DATABASE_URL: mysql('platform_no_such_database'), SECRETS_KEY: KEY, DATABASE_START_WAIT_S: '30' });
  expectRefusal(missing, /platform_no_such_database does not exist: .*Create it \(CREATE DATABASE …\) or fix the name in DATABASE_URL/);
  expect(missing.ms).toBeLessThan(20_000);

  const url = new URL(mysql('platform_unused'));
  url.username = 'no_such_user';
  url.password = 'wrong';
  const denied = await run('src/main.ts', { DATABASE_URL: url.toString(), SECRETS_KEY: KEY, DATABASE_START_WAIT_S: '30' });
  expectRefusal(denied, /refused the credentials: .*Check the user and password in DATABASE_URL/);
  expect(denied.ms).toBeLessThan(20_000);
}, 60_000);

test('conflicting variables stop the start, each named', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ WEB_CONCURRENCY: '2' }, /WEB_CONCURRENCY: WEB_CONCURRENCY above 1 needs DATABASE_URL/],
    [{ DATABASE_READ_URLS: 'mysql://root@127.0.0.1:3307/x' }, /DATABASE_READ_URLS needs DATABASE_URL/],
    [{ OIDC_ISSUER: 'https://idp.example.com' }, /OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together/],
    [{ DATABASE_START_WAIT_S: 'soon' }, /DATABASE_START_WAIT_S must be a whole number, 0 or more/],
    [{ METRICS_PORT: '3000', PORT: '3000' }, /METRICS_PORT must differ from PORT \(3000\)/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be the http\(s\) URL of an OTLP\/HTTP collector/],
  ];
  for (const [env, message] of cases) expectRefusal(await run('src/main.ts', env), message);
}, 120_000);
