import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../support/ports';
import { startTestApp, TestApp, SERVICES } from '../support/harness';
import { HAS_PROMETHEUS_PARSER, parseExposition } from '../support/peers/prometheusParser';
import { builtFile } from '../support/cli';

/**
 * WEB_CONCURRENCY: the real process (`src/main.ts`) as a cluster of workers on one port, on MySQL and Redis (the
 * embedded database takes one writing process, so the configuration refuses it there). The primary migrates
 * once; SIGTERM stops every worker the way one process stops: what is on the wire is answered, then exit 0.
 */
const describeServers = SERVICES.databaseUrl && SERVICES.redisUrl ? describe : describe.skip;

let t: TestApp;
let token: string;
beforeAll(async () => {
  if (!SERVICES.databaseUrl || !SERVICES.redisUrl) return;
  t = await startTestApp();
  token = await t.token();
});
afterAll(async () => t?.close());

/** One request on a connection of its own, so the cluster may hand it to any worker. */
const get = (port: number, urlPath: string, auth: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get({ port, host: '127.0.0.1', path: urlPath, agent: false, headers: { authorization: `Bearer ${auth}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });

describeServers('WEB_CONCURRENCY', () => {
  test('two workers serve one port, their metrics gathered on METRICS_PORT; SIGTERM drains both, answers what is in flight, exits 0', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: t.config.DATABASE_URL,
      REDIS_URL: SERVICES.redisUrl,
      SECRETS_KEY: t.config.SECRETS_KEY!.toString('hex'),
      WEB_CONCURRENCY: '2',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '1000',
      // The process counts in Redis under the service's own key prefix, per user: other runs on this Redis within
      // the hour (a benchmark as ada) must not make this one's requests 429.
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_HOUR: '100000000',
    };
    const proc = spawn(process.execPath, [builtFile('src/main.ts')], { env, cwd: path.resolve(__dirname, '..', '..') });
    let output = '';
    proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const listening = () => [...output.matchAll(/"pid":(\d+)[^\n]*"msg":"platform API listening"/g)].map((m) => m[1]);
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (new Set(listening()).size === 2) resolve();
        });
        proc.on('exit', (code) => reject(new Error(`exited early (${code}): ${output}`)));
      });
      expect(output).toContain('"workers":2,"msg":"cluster started"');

      const answers = await Promise.all(Array.from({ length: 40 }, () => get(port, '/v1/users?per_page=5', token)));
      expect(answers.every((s) => s === 200)).toBe(true);

      // The primary asks both workers and sums their counts: every request once, whichever worker served it.
      if (HAS_PROMETHEUS_PARSER || process.env.REQUIRE_PROMETHEUS_PARSER === '1') {
        const scraped = parseExposition(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
        const counts = scraped.flatMap((f) => f.samples).filter((s) => s.name === 'http_request_duration_seconds_count' && s.labels.route === '/v1/users');
        expect(counts.map((s) => [s.labels.status, s.value])).toEqual([['200', 40]]);
      }

      const inFlight = [1, 2, 3, 4, 5, 6].map((page) => get(port, `/v1/users?per_page=100&page=${page}`, token));
      await new Promise((r) => setTimeout(r, 5));
      proc.kill('SIGTERM');
      expect(await Promise.all(inFlight)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(await exited).toBe(0);
      expect(output.match(/"msg":"shutting down"/g)).toHaveLength(2);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
