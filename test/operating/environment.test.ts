import os from 'node:os';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';

/** An environment variable set to the empty string means unset: for the service, its CLIs and its tests alike. */

const ROOT = path.resolve(__dirname, '..', '..');

test('the service reads an empty DATABASE_URL or REDIS_URL as unset', () => {
  const config = loadConfig({ DATABASE_URL: '', REDIS_URL: '' });
  expect(config.DATABASE_URL).toBeUndefined();
  expect(config.REDIS_URL).toBeUndefined();
});

test('the test suite loads with REDIS_URL and DATABASE_URL set but empty', async () => {
  // Loading the files runs every describe block's body; running no test keeps it quick.
  const files = ['test/api/rateLimit.test.ts', 'test/api/users.test.ts', 'test/cli/tokensCli.test.ts'];
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), ...files, '-t', '^no test has this name$', '--ci'],
      { cwd: ROOT, env: { ...process.env, REDIS_URL: '', DATABASE_URL: '' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr }),
    );
  });
  expect(result.output).not.toContain('Invalid URL');
  expect(result.output).toMatch(/Test Suites: 3 skipped/);
  expect(result.code).toBe(0);
}, 150_000);

test('WEB_CONCURRENCY: a number of workers or auto (one per CPU); above 1 only on MySQL with Redis', () => {
  const servers = { DATABASE_URL: 'mysql://root@127.0.0.1:3306/x', REDIS_URL: 'redis://127.0.0.1:6379' };
  expect(loadConfig({}).WEB_CONCURRENCY).toBe(1);
  expect(loadConfig({ ...servers, WEB_CONCURRENCY: '3' }).WEB_CONCURRENCY).toBe(3);
  expect(loadConfig({ ...servers, WEB_CONCURRENCY: 'auto' }).WEB_CONCURRENCY).toBe(os.availableParallelism());
  expect(() => loadConfig({ ...servers, WEB_CONCURRENCY: '0' })).toThrow(/WEB_CONCURRENCY must be a number of worker processes \(1 to 999\) or auto/);
  expect(() => loadConfig({ WEB_CONCURRENCY: '2' })).toThrow(/WEB_CONCURRENCY above 1 needs DATABASE_URL/);
  expect(() => loadConfig({ DATABASE_URL: servers.DATABASE_URL, WEB_CONCURRENCY: '2' })).toThrow(/WEB_CONCURRENCY above 1 needs REDIS_URL/);
});

test('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together; the issuer is https (or this machine)', () => {
  expect(() => loadConfig({ OIDC_ISSUER: 'https://example.okta.com' })).toThrow(/OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together/);
  expect(() => loadConfig({ OIDC_ISSUER: 'http://idp.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' })).toThrow(/OIDC_ISSUER must be the https:\/\/ issuer URL/);
  const config = loadConfig({ OIDC_ISSUER: 'https://example.okta.com', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'secret-value', OIDC_SCOPES: 'openid email' });
  expect(config.OIDC_SCOPES).toBe('openid email');
  expect(() => loadConfig({ OIDC_SCOPES: 'openid profile' })).toThrow(/OIDC_SCOPES must include openid and email/);
  try {
    loadConfig({ OIDC_ISSUER: 'https://example.okta.com', OIDC_CLIENT_SECRET: 'secret-value' });
  } catch (err) {
    expect((err as Error).message).not.toContain('secret-value');
  }
});
