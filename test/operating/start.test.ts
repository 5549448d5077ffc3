import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm start` as a newcomer runs it: the build rewrites no file of unchanged sources (a second start touches
 * nothing), and the first start on a new embedded database prints a curl line that works when pasted.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');

function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const build = () => run('npm', ['run', 'build', '--silent']);

test('a second build of unchanged sources rewrites nothing', async () => {
  expect((await build()).code).toBe(0);
  const before = fs.statSync(MAIN).mtimeMs;
  expect((await build()).code).toBe(0);
  expect(fs.statSync(MAIN).mtimeMs).toBe(before);
}, 180_000);

test('the first start prints a curl line that works pasted into a shell that refuses unmatched globs (as zsh does)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, SQLITE_PATH: path.join(dir, 'db.sqlite'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  expect((await build()).code).toBe(0);
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /^ {2}(curl .*)$/m.exec(output);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited (${code}) before printing the curl line: ${output}`)));
    });
    expect(line).toMatch(/^curl -s -H "Authorization: Bearer plat_[A-Za-z0-9]+" "http:\/\/localhost:\d+\/v1\/users\?per_page=5"$/);
    // failglob: an unquoted `?` that matches no file is an error, as zsh's default nomatch makes it.
    const pasted = await run('bash', ['--norc', '--noprofile', '-O', 'failglob', '-c', line], { PATH: process.env.PATH });
    expect(pasted.stderr).toBe('');
    const body = JSON.parse(pasted.stdout);
    expect(body.status).toBe('success');
    expect(body.data).toHaveLength(5);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
