import { execFile } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../src/config';

/** An environment variable set to the empty string means unset: for the service, its CLIs and its tests alike. */

const ROOT = path.resolve(__dirname, '..');

test('the service reads an empty DATABASE_URL or REDIS_URL as unset', () => {
  const config = loadConfig({ DATABASE_URL: '', REDIS_URL: '' });
  expect(config.DATABASE_URL).toBeUndefined();
  expect(config.REDIS_URL).toBeUndefined();
});

test('the test suite loads with REDIS_URL and DATABASE_URL set but empty', async () => {
  // Loading the files runs every describe block's body; running no test keeps it quick.
  const files = ['test/rateLimit.test.ts', 'test/users.test.ts', 'test/tokensCli.test.ts'];
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
