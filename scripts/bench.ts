/**
 * Load benchmark: latency and throughput of chosen endpoints against a running server, plus the server's
 * memory if its pid is given. Speed is measured here, never asserted in tests.
 *
 *   npm run bench -- --url http://127.0.0.1:3000 --token plat_… [--connections 32] [--seconds 10] \
 *     [--pid 1234] [--path /v1/users] [--path "/v1/users?page=500"]
 *
 * Rate limits apply to the benchmark's user too: start the server with large RATE_LIMIT_PER_* values.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const DEFAULT_PATHS = [
  '/v1/users',
  '/v1/users?page=1000&per_page=50',
  '/v1/users?sort=name&order=asc',
  '/v1/organizations/org_acme/members',
  '/v1/organizations/org_acme/members?page=1000',
  '/v1/users/usr_ada',
  '/v1/users/usr_linus/interactions',
];

function rssMb(pid: string | undefined): string {
  if (!pid) return '-';
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return (kb / 1024).toFixed(0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      token: { type: 'string' },
      connections: { type: 'string', default: '32' },
      seconds: { type: 'string', default: '10' },
      pid: { type: 'string' },
      path: { type: 'string', multiple: true },
    },
  });
  if (!values.token) throw new Error('--token is required (npm run tokens -- create --user ada@demo.test)');
  const paths = values.path?.length ? values.path : DEFAULT_PATHS;
  console.log(`| path | req/s | p50 ms | p99 ms | non-2xx | server RSS MB |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const path of paths) {
    const result = await autocannon({
      url: `${values.url}${path}`,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      headers: { authorization: `Bearer ${values.token}` },
    });
    console.log(
      `| ${path} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx} | ${rssMb(values.pid)} |`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
