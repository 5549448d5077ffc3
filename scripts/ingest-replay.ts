/**
 * npm run ingest:replay -- --url http://localhost:3000 --git-app gapp_… --secret … [--api-token plat_…] [--events all]
 *
 * Replays GitHub's own example payloads (@octokit/webhooks-examples) against a running service's
 * /ingest/github/{git_app_id}, signed with the git app's secret by GitHub's helper, the way GitHub delivers them:
 * every example of the handled events (ping, push, pull_request, repository, deployment_status, issues) or, with
 * `--events all`, of every event GitHub has; then the same deliveries again (redeliveries, same delivery ids).
 * Prints one table per pass: deliveries, answers by status and result, and the time to answer (p50, p95, max).
 * With --api-token it then reads what /v1 shows for the git app. Point it at a git app made for the purpose:
 * the examples' repositories (Codertocat/Hello-World, ...) become repositories of it.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sign } from '@octokit/webhooks-methods';

const HANDLED = ['ping', 'push', 'pull_request', 'repository', 'deployment_status', 'issues'];

interface Delivery {
  event: string;
  id: string;
  body: string;
}

async function deliver(url: string, gitApp: string, secret: string, d: Delivery) {
  const started = performance.now();
  const res = await fetch(`${url}/ingest/github/${gitApp}`, {
    method: 'POST',
    body: d.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'GitHub-Hookshot/replay',
      'X-GitHub-Event': d.event,
      'X-GitHub-Delivery': d.id,
      'X-Hub-Signature-256': await sign(secret, d.body),
    },
  });
  const body = (await res.json()) as { data?: { result?: string }; error?: { code: string; message: string } };
  return { status: res.status, result: body.data?.result ?? body.error?.code ?? '?', ms: performance.now() - started, error: body.error?.message };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

async function pass(name: string, deliveries: Delivery[], send: (d: Delivery) => ReturnType<typeof deliver>) {
  const answers: Record<string, number> = {};
  const times: number[] = [];
  const started = performance.now();
  for (const d of deliveries) {
    const a = await send(d);
    const key = `${a.status} ${a.result}`;
    answers[key] = (answers[key] ?? 0) + 1;
    times.push(a.ms);
    if (a.status >= 400) process.stderr.write(`${d.event}: ${a.status} ${a.error}\n`);
  }
  times.sort((x, y) => x - y);
  const total = (performance.now() - started) / 1000;
  process.stdout.write(
    `${name}: ${deliveries.length} deliveries in ${total.toFixed(1)} s; ` +
      `p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms\n` +
      Object.entries(answers)
        .sort()
        .map(([k, n]) => `  ${k.padEnd(24)} ${n}\n`)
        .join(''),
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://localhost:3000' },
      'git-app': { type: 'string' },
      secret: { type: 'string' },
      'api-token': { type: 'string' },
      events: { type: 'string', default: 'handled' },
    },
  });
  if (!values['git-app'] || !values.secret) {
    process.stderr.write('ingest:replay needs --git-app <id> and --secret <its webhook secret> (npm run gitapps -- create --provider github ...)\n');
    process.exitCode = 2;
    return;
  }
  const all = require('@octokit/webhooks-examples') as { name: string; examples: unknown[] }[];
  const deliveries: Delivery[] = all
    .filter((e) => values.events === 'all' || HANDLED.includes(e.name))
    .flatMap((e) => e.examples.map((payload) => ({ event: e.name, id: randomUUID(), body: JSON.stringify(payload) })));
  const send = (d: Delivery) => deliver(values.url!, values['git-app']!, values.secret!, d);
  await pass('first delivery', deliveries, send);
  await pass('redelivery', deliveries, send);
  if (values['api-token']) {
    const get = async (path: string) =>
      ((await (await fetch(`${values.url}/v1${path}`, { headers: { Authorization: `Bearer ${values['api-token']}` } })).json()) as { meta?: { total: number } }).meta?.total;
    const base = `/git/apps/${values['git-app']}/repositories`;
    process.stdout.write(
      `/v1: ${await get(base)} repositories, ${await get(`${base}/all/commits`)} commits, ${await get(`${base}/all/pull-requests`)} pull requests, ` +
        `${await get(`${base}/all/deployments`)} deployments, ${await get(`${base}/all/incidents`)} incidents\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest:replay: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
