/**
 * npm run scim:sync -- --url http://localhost:3000 --scim-token scim_… --api-token plat_… --org org_acme
 *                      [--users 300] [--groups 30] [--concurrency 4]
 *
 * Plays an identity provider's provisioning against a running service, the way Okta and Entra ID do it: an
 * initial sync (per user: look up by userName, create), a second full sync (per user: look up, compare what was
 * sent with what the service answers, push again where they differ: "pushed again" counts those, and is 0 when
 * the service keeps attributes as sent),
 * group pushes with members, updates (deactivations, renames, membership changes), then deprovisioning. After each phase it reads /v1 with an API token and prints
 * one table: requests, time, failures, and what /v1 shows. Users are named scim-sync-<run>-<n>@example.test, so
 * runs never collide; nothing is cleaned up (the deprovisioned ones are removed by the run itself).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface Options {
  url: string;
  scimToken: string;
  apiToken: string;
  org: string;
  users: number;
  groups: number;
  concurrency: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://localhost:3000' },
      'scim-token': { type: 'string' },
      'api-token': { type: 'string' },
      org: { type: 'string' },
      users: { type: 'string', default: '300' },
      groups: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const missing = ['scim-token', 'api-token', 'org'].filter((k) => !values[k as keyof typeof values]);
  if (missing.length) throw new Error(`missing --${missing.join(', --')} (see the header of scripts/scim-sync.ts)`);
  const count = (name: string, v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`--${name} must be a positive integer`);
    return Number(v);
  };
  return {
    url: values.url!.replace(/\/+$/, ''),
    scimToken: values['scim-token']!,
    apiToken: values['api-token']!,
    org: values.org!,
    users: count('users', values.users!),
    groups: count('groups', values.groups!),
    concurrency: count('concurrency', values.concurrency!),
  };
}

interface Tally {
  requests: number;
  /** 429 answers (waited out and sent again). */
  throttled: number;
  failures: string[];
}

async function main(): Promise<void> {
  const o = options();
  const run = randomBytes(3).toString('hex');
  const tally: Tally = { requests: 0, throttled: 0, failures: [] };
  /** One SCIM request; a 429 is waited out as its Retry-After says and sent again, as identity providers do. */
  const scim = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    for (;;) {
      tally.requests++;
      const res = await fetch(`${o.url}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${o.scimToken}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 429) {
        tally.throttled++;
        await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      if (!res.ok) tally.failures.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    }
  };
  const v1Total = async (path: string) => {
    const res = await fetch(`${o.url}/v1${path}${path.includes('?') ? '&' : '?'}per_page=1`, { headers: { authorization: `Bearer ${o.apiToken}` } });
    if (!res.ok) throw new Error(`GET /v1${path} answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { meta: { total: number } }).meta.total;
  };
  /** Runs the tasks `concurrency` at a time, as identity providers do (Okta: a few parallel requests per app). */
  const inParallel = async <T>(items: T[], task: (item: T, i: number) => Promise<unknown>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < items.length) {
          const i = next++;
          await task(items[i], i);
        }
      }),
    );
  };

  const rows: string[][] = [];
  const phase = async (name: string, work: () => Promise<void>) => {
    const [requests, throttled, failures, started] = [tally.requests, tally.throttled, tally.failures.length, Date.now()];
    await work();
    const seconds = (Date.now() - started) / 1000;
    const n = tally.requests - requests;
    const [members, teams] = await Promise.all([v1Total(`/organizations/${o.org}/members`), v1Total(`/organizations/${o.org}/teams`)]);
    rows.push([name, String(n), String(tally.throttled - throttled), seconds.toFixed(1), (n / seconds).toFixed(0), String(tally.failures.length - failures), String(members), String(teams)]);
    process.stderr.write(`scim-sync: ${name} done\n`);
  };

  const [members0, teams0] = await Promise.all([v1Total(`/organizations/${o.org}/members`), v1Total(`/organizations/${o.org}/teams`)]);
  rows.push(['before', '0', '0', '0', '–', '0', String(members0), String(teams0)]);
  const emails = Array.from({ length: o.users }, (_, i) => `scim-sync-${run}-${i + 1}@example.test`);
  const ids: string[] = [];
  const groupIds: string[] = [];

  // As Okta sends a user: name parts and a displayName that is not their join, the work address, the IdP's id.
  const userBody = (email: string, i: number) => ({
    schemas: [CORE],
    userName: email,
    name: { givenName: 'Sync', familyName: `User ${i + 1}` },
    displayName: `sync user ${i + 1}`,
    emails: [{ value: email, type: 'work', primary: true }],
    externalId: `idp-${run}-${i + 1}`,
    active: true,
  });
  await phase(`initial sync: ${o.users} users (lookup, create)`, () =>
    inParallel(emails, async (email, i) => {
      const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
      if (found.totalResults !== 0) throw new Error(`${email}: the lookup found ${JSON.stringify(found).slice(0, 200)}`);
      const created = await scim('POST', '/Users', userBody(email, i));
      ids[i] = created.id as string;
    }),
  );
  let pushed = 0;
  await phase(`full sync again: ${o.users} users (lookup, compare, replace where different)`, () =>
    inParallel(emails, async (email, i) => {
      const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
      const resource = (found.Resources as Record<string, unknown>[] | undefined)?.[0];
      const sent = userBody(email, i);
      if (resource && !differs(sent, resource)) return;
      pushed++;
      await scim('PUT', `/Users/${ids[i]}`, sent);
    }),
  );
  rows[rows.length - 1][0] += `: ${pushed} pushed again`;
  if (pushed > 0) tally.failures.push(`${pushed} of ${o.users} users read back differently from what was sent, and were pushed again`);
  await phase(`push ${o.groups} groups with members`, () =>
    inParallel(
      Array.from({ length: o.groups }, (_, g) => g),
      async (g) => {
        const members = ids.filter((_, i) => i % o.groups === g).map((value) => ({ value }));
        const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `scim-sync ${run} group ${g + 1}`, members });
        groupIds[g] = created.id as string;
      },
    ),
  );
  const deactivated = ids.filter((_, i) => i % 10 === 0);
  await phase(`updates: deactivate ${deactivated.length}, rename ${o.groups} groups, move ${o.groups} members`, async () => {
    await inParallel(deactivated, (id) => scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }));
    await inParallel(groupIds, (id, g) =>
      scim('PATCH', `/Groups/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'replace', value: { id, displayName: `scim-sync ${run} group ${g + 1} (renamed)` } },
          { op: 'add', path: 'members', value: [{ value: ids[(g + 1) % ids.length] }] },
          { op: 'remove', path: `members[value eq "${ids[g % ids.length]}"]` },
        ],
      }),
    );
  });
  const removed = ids.filter((_, i) => i % 20 === 1);
  await phase(`deprovision: delete ${removed.length} users, ${Math.ceil(o.groups / 10)} groups`, async () => {
    await inParallel(removed, (id) => scim('DELETE', `/Users/${id}`));
    await inParallel(groupIds.slice(0, Math.ceil(o.groups / 10)), (id) => scim('DELETE', `/Groups/${id}`));
  });

  const header = ['phase', 'requests', 'of them 429', 'seconds', 'req/s', 'failures', '/v1 members total', '/v1 teams total'];
  process.stdout.write(`| ${header.join(' | ')} |\n|${header.map((_, i) => (i === 0 ? '---' : '--:')).join('|')}|\n`);
  for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
  if (tally.failures.length) process.stdout.write(`\nFailures:\n${tally.failures.slice(0, 20).map((f) => `- ${f}`).join('\n')}\n`);
  process.exitCode = tally.failures.length ? 1 : 0;
}

/** Whether what the service answers differs from what was sent, as an identity provider compares them. */
function differs(sent: unknown, answer: unknown): boolean {
  if (Array.isArray(sent)) return !Array.isArray(answer) || sent.length !== answer.length || sent.some((s, i) => differs(s, answer[i]));
  if (sent && typeof sent === 'object') {
    if (!answer || typeof answer !== 'object') return true;
    return Object.entries(sent).some(([k, v]) => k !== 'schemas' && differs(v, (answer as Record<string, unknown>)[k]));
  }
  return typeof sent === 'string' && typeof answer === 'string' ? sent.toLowerCase() !== answer.toLowerCase() && sent !== answer : sent !== answer;
}

main().catch((e: unknown) => {
  process.stderr.write(`scim-sync: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
