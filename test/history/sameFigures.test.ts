import { randomUUID } from 'node:crypto';
import { providerCatalog } from '../../src/integrations/catalog';
import { commitsOfClone, repositoryOfClone } from '../../src/integrations/git/importer';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import { OrganizationWriter } from '../../src/services/organizations/organizations';
import { GIT_APP_LINKS } from '../../src/services/people/linkTables';
import { GitApp } from '../../db/models';
import { startTestApp, TestApp } from '../support/harness';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { deliverToGithub } from '../support/peers/ingest';
import { Clone, deliveries, PEOPLE, restHistory, Who } from '../support/peers/github/helloWorldMonth';

/**
 * The metrics over a window equal those of the same history delivered by webhooks alone (issue 59). One month of
 * Codertocat/Hello-World (test/support/peers/github/helloWorldMonth.ts: seven pull requests opened, reviewed, merged or
 * closed, seven deployments with a failure, a staging one and rework, an incident that blames a deployment and is
 * resolved four hours later) reaches two fresh organizations: W by GitHub's signed webhook deliveries alone, I by the
 * history import alone (the runner reading the fake GitHub API, which serves the same objects as the REST API answers
 * them), its commits from a clone as `npm run import -- git` brings them (the history import reads none). The same
 * three people are members of both, with their GitHub logins linked, so per-person figures name the same users.
 * Then every figure the Metrics API gives for each organization over the month, day by day, must be the same, but for
 * those excluded below, each saying why.
 */
const NOW = new Date('2026-04-01T12:00:00Z');
const MONTH = { from: '2026-03-01', to: '2026-03-31' };
const TOKEN = `github_pat_${randomUUID().replaceAll('-', '')}`;
const github = new FakeGitHubApi();
let clone: Clone;

let t: TestApp;
beforeAll(async () => {
  clone = new Clone();
  // A fixed "now": the figures of what is open now (ages) are the same for both requests.
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' }, { clock: () => NOW });
  await github.start();
  github.tokens.add(TOKEN);
  github.repositories.push(restHistory(clone));
  // Two to a page: every list is read over several pages.
  github.pageSize = 2;
});
afterAll(async () => {
  await github.stop();
  await t.close();
  clone.remove();
});

/** A fresh organization with the three people as members (Codertocat its admin) and a GitHub git app knowing their logins. */
async function organization(name: string) {
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const made = await new OrganizationWriter(changes).create({ name, adminEmail: PEOPLE.codertocat.email, adminName: PEOPLE.codertocat.name });
  for (const who of ['octocat', 'hubot'] as Who[]) {
    await t.runtime.writers.members.provision(made.id, { email: PEOPLE[who].email, name: PEOPLE[who].name, role: 'collaborator', active: true, externalId: null, title: null });
  }
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(made.id, 'github', `GitHub ${name}`);
  for (const who of Object.keys(PEOPLE) as Who[]) await t.runtime.writers.accountLinks.linkUser(GIT_APP_LINKS, gitApp.id, PEOPLE[who].email, PEOPLE[who].login);
  return { organizationId: made.id, gitAppId: gitApp.id, secret, token: await t.token({ user: PEOPLE.codertocat.email, organizationIds: [made.id] }) };
}

async function deliveredByWebhooks() {
  const w = await organization('Webhooks alone');
  for (const d of deliveries(clone)) {
    const res = await deliverToGithub(t, w.gitAppId, w.secret, { event: d.event, payload: d.payload });
    // A deployment in progress is acknowledged and kept for nothing; everything else is stored.
    const unfinished = res.status === 202 && /is not a finished deployment/.test(res.body.data.reason);
    if (!unfinished && (res.status !== 200 || res.body.data.result !== 'applied')) throw new Error(`${d.event} at ${d.at}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return w;
}

/** I: the history import and the clone's import, in either order (a company may run either first). */
async function imported(order: 'history first' | 'clone first') {
  const i = await organization(`History import, ${order}`);
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const secrets = new SecretBox(() => secretsKeyFor(t.config));
  await new ConnectionCredentials(changes, secrets, providerCatalog()).setCredential({ type: 'git_app', id: i.gitAppId }, { kind: 'token', token: TOKEN });
  // The fake answers on loopback, which the operator's allowance lets calls reach; waits take no time.
  const http = { outbound: { ...outboundPolicy(t.config), allowPrivate: true }, sleep: async () => undefined, now: () => new Date() };
  const importHistory = async () => {
    const outcome = await createHistoryImports(t.config, changes, secrets, providerCatalog(), http).run({
      connection: { type: 'git_app', id: i.gitAppId },
      since: new Date('2026-03-01T00:00:00Z'),
      until: new Date('2026-04-01T00:00:00Z'),
      baseUrl: github.base,
    });
    expect(outcome).toMatchObject({ outcome: 'complete', message: null });
  };
  // The clone's commits, as `npm run import -- git` stores them.
  const importClone = async () => {
    const gitApp = (await GitApp.findByPk(i.gitAppId))!;
    const repository = await repositoryOfClone(clone.dir);
    for await (const commits of commitsOfClone(clone.dir)) await t.runtime.writers.gitActivity.importCommits(gitApp, repository, commits);
  };
  for (const step of order === 'history first' ? [importHistory, importClone] : [importClone, importHistory]) await step();
  return i;
}

/** The figures of each metric compared: DORA's, the pull requests', collaboration's, activity's and AI impact's. */
type Figures = Record<'dora' | 'pull-requests' | 'collaboration' | 'activity' | 'ai-impact', Record<string, any>>;

/** Every metric over the month, day by day, as the organization's admin reads it; without the scope, which names the organization. */
async function figuresOf(org: { organizationId: string; token: string }): Promise<Figures> {
  const read = async (metric: keyof Figures) => {
    const res = await t.get(`/v1/metrics/${metric}?${new URLSearchParams({ organization_id: org.organizationId, ...MONTH, interval: 'day' })}`, org.token);
    expect(res.status).toBe(200);
    const { scope, ...rest } = res.body.data;
    expect(scope).toMatchObject({ organization_id: org.organizationId });
    return rest;
  };
  return { dora: await read('dora'), 'pull-requests': await read('pull-requests'), collaboration: await read('collaboration'), activity: await read('activity'), 'ai-impact': await read('ai-impact') };
}

let w: Figures;
// About fifty deliveries, one after another: on a busy MariaDB this takes longer than a test's usual minute.
beforeAll(async () => {
  w = await figuresOf(await deliveredByWebhooks());
}, 180_000);

test('the history is no empty one: what the webhooks brought gives figures worth comparing', () => {
  expect(w.dora).toMatchObject({ deployment_frequency: { deployments: 5 }, change_failure_rate: { failed: 2, deployments: 6 } });
  expect(w['pull-requests']).toMatchObject({ opened: 7, merged: 5, closed_unmerged: 1, open_now: 1 });
  expect(w.collaboration).toMatchObject({ merged: 5, unreviewed_merged: { count: 1 } });
});

test.each(['history first', 'clone first'] as const)('the metrics over the window equal those of the same history delivered by webhooks alone (imported, %s)', async (order) => {
  const i = await figuresOf(await imported(order));

  // The excluded figures, as each side has them: should the import come to read what they need, drop the exclusion.
  expect([w.collaboration.iterated_prs.count, i.collaboration.iterated_prs.count]).toEqual([1, 0]);
  expect(w['ai-impact'].pr_size_lines.other.n).toBe(5);
  expect(comparable(i)).toEqual(comparable(w));
});

/** The figures but those that cannot be equal, each for a reason GitHub's REST API gives. */
function comparable(figures: Figures): Figures {
  const kept = structuredClone(figures);
  const drop = (metric: keyof Figures, figure: string) => {
    delete kept[metric][figure];
    for (const bucket of kept[metric].series) delete bucket[figure];
  };
  // A pull request changed in review (a commit pushed to its branch while open) is known by the `synchronize`
  // delivery only (its `commit:<head>` activity at the push's time): GitHub's REST API keeps no record of a push (a
  // pull request's commits say when they were authored and committed, not when they were pushed), so the import has
  // none to read. AI impact's "a commit pushed while open" is the same, but no commit here is AI-assisted.
  drop('collaboration', 'iterated_prs');
  return kept;
}
