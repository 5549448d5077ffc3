import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';
import { appCli } from '../support/cli';
import { killServiceProcesses, ServiceProcess, startServiceProcess } from '../support/serviceProcess';

/**
 * A command-line writer tells every instance of its change before it reports success, as the service's own writers
 * do (docs/architecture.md#writers): two API processes on MariaDB + Redis serve `/v1/commits` with their totals cached (for ten
 * minutes, and their poll of the data versions as slow), the importer adds commits, and the very next request on
 * either instance counts them. Without Redis the importer can only leave its versions in the table: then the
 * instances keep their totals until their poll (DATA_VERSIONS_POLL_MS), which is what the README says.
 * MariaDB + Redis only: the embedded database takes one writing process, and without Redis there is nothing to push.
 */

/** Long enough that only a pushed version can explain an exact total within the test. */
const SLOW_MS = '600000';

let t: TestApp;
let token: string;
let clone: string;
let gitAppId: string;
const instances: ServiceProcess[] = [];

function startInstance(): Promise<ServiceProcess> {
  return startServiceProcess(`instance ${instances.length + 1}`, {
    DATABASE_URL: t.config.DATABASE_URL,
    REDIS_URL: SERVICES.redisUrl,
    SECRETS_KEY: t.config.SECRETS_KEY!.toString('hex'),
    COUNT_CACHE_TTL_MS: SLOW_MS,
    DATA_VERSIONS_POLL_MS: SLOW_MS,
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_HOUR: '100000000',
  }).then((instance) => {
    instances.push(instance);
    return instance;
  });
}

function git(args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

/** `count` more commits by ada, a minute apart from `start`. */
function addCommits(count: number, start: string) {
  for (let i = 0; i < count; i++) {
    const date = new Date(Date.parse(start) + i * 60_000).toISOString();
    fs.writeFileSync(path.join(clone, 'log.txt'), `${start} ${i}\n`, { flag: 'a' });
    git(['add', '-A']);
    git(['commit', '-q', '-m', `Change ${start} ${i}`], {
      GIT_AUTHOR_NAME: 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@demo.test',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@demo.test',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    });
  }
}

/** `meta.total` of `/v1/commits` on one instance, on a connection of its own. */
async function commitsTotal(instance: ServiceProcess): Promise<number> {
  const res = await fetch(`${instance.origin}/v1/commits?per_page=1`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { meta: { total: number } }).meta.total;
}

const describeServers = SERVICES.databaseUrl && SERVICES.redisUrl ? describe : describe.skip;

describeServers('a CLI change on two instances (MariaDB + Redis)', () => {
  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token();
    clone = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-clone-'));
    execFileSync('git', ['init', '-q', '-b', 'main', clone]);
    git(['remote', 'add', 'origin', 'git@github.com:acme/pushed.git']);
    addCommits(3, '2026-01-05T09:00:00Z');
    const created = await appCli(t, 'gitapps')('create', '--org', DEMO.orgs.acme, '--provider', 'github', '--name', 'GitHub acme (pushed)', '--json');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    gitAppId = JSON.parse(created.stdout).id;
    await Promise.all([startInstance(), startInstance()]);
  }, 90_000);

  afterAll(async () => {
    await killServiceProcesses(instances);
    if (clone) fs.rmSync(clone, { recursive: true, force: true });
    await t?.close();
  });

  test('the importer publishes its data versions: the very next /v1/commits on either instance counts what it added; without Redis the poll bounds it', async () => {
    const [a, b] = instances;
    const before = await commitsTotal(a);
    expect(await commitsTotal(b)).toBe(before);
    // Counted and cached on both (the total is not taken from a short page: there are more commits than per_page).
    expect(before).toBeGreaterThan(1);

    const importer = appCli(t, 'import');
    const first = await importer('git', '--git-app', gitAppId, clone, '--json');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toMatchObject({ commits_added: 3 });
    expect([await commitsTotal(a), await commitsTotal(b)]).toEqual([before + 3, before + 3]);

    // The same command without Redis changes the table's versions only: the instances are not told, and keep their
    // cached totals until their poll reads the table (here ten minutes; by default a second).
    addCommits(2, '2026-01-06T09:00:00Z');
    const unannounced = await appCli(t, 'import', { REDIS_URL: '' })('git', '--git-app', gitAppId, clone, '--json');
    expect(unannounced).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(unannounced.stdout)).toMatchObject({ commits_added: 2 });
    expect([await commitsTotal(a), await commitsTotal(b)]).toEqual([before + 3, before + 3]);

    // With Redis again: its versions (raised past the unannounced ones) reach both at once.
    addCommits(4, '2026-01-07T09:00:00Z');
    const next = await importer('git', '--git-app', gitAppId, clone, '--json');
    expect(JSON.parse(next.stdout)).toMatchObject({ commits_added: 4 });
    expect([await commitsTotal(a), await commitsTotal(b)]).toEqual([before + 9, before + 9]);
  }, 90_000);

  test('another writing CLI publishes the same way: a git app made by `gitapps` is counted at once on both', async () => {
    const [a, b] = instances;
    const gitAppsTotal = async (instance: ServiceProcess) => {
      const res = await fetch(`${instance.origin}/v1/git/apps?per_page=1`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { meta: { total: number } }).meta.total;
    };
    const before = await gitAppsTotal(a);
    expect(await gitAppsTotal(b)).toBe(before);
    expect(before).toBeGreaterThan(1); // counted, not read off a short page
    const created = await appCli(t, 'gitapps')('create', '--org', DEMO.orgs.acme, '--provider', 'gitlab', '--name', 'GitLab acme (pushed)', '--json');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect([await gitAppsTotal(a), await gitAppsTotal(b)]).toEqual([before + 1, before + 1]);
  }, 60_000);
});
