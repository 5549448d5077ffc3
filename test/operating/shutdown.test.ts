import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createSequelize } from '../../db/connection';
import { migrate } from '../../db/migrator';
import { seedDemo } from '../../db/demo/generator';
import { DEMO_END_DAY } from '../../db/demo/fixtures/timeline';
import { initModels } from '../../db/models';
import { createToken } from '../../src/auth/tokens/apiTokens';
import { builtFile } from '../support/cli';

// The real process: SIGTERM stops accepting, lets in-flight requests finish, closes pools and exits 0.
// Runs on the embedded database only: the process under test is started the way `npm start` starts it.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-shutdown-'));
const sqlitePath = path.join(dir, 'db.sqlite');
let token: string;

beforeAll(async () => {
  const sequelize = createSequelize({ sqlitePath });
  initModels(sequelize);
  await migrate(sequelize);
  await seedDemo(sequelize, { scale: 'tiny', endDay: DEMO_END_DAY });
  token = (await createToken({ user: 'ada@demo.test' })).token;
  await sequelize.close();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function get(port: number, urlPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path: urlPath, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

let child: ReturnType<typeof spawn> | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

test('SIGTERM: requests on the wire complete, readiness fails while draining, then exit code 0', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, SQLITE_PATH: sqlitePath, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '1500' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const proc = spawn(process.execPath, [builtFile('src/main.ts')], { env, cwd: path.resolve(__dirname, '..', '..') });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    proc.on('exit', (code) => reject(new Error(`exited early (${code}): ${output}`)));
  });
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));

  const inFlight = [1, 2, 3, 4].map((page) => get(port, `/v1/users?per_page=100&page=${page}`));
  await new Promise((r) => setTimeout(r, 5));
  proc.kill('SIGTERM');
  expect(await Promise.all(inFlight)).toEqual([200, 200, 200, 200]);
  expect(await get(port, '/readyz')).toBe(503);
  expect(await exited).toBe(0);
  expect(output).toContain('"msg":"shutting down"');
  await expect(get(port, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
});
