import { randomUUID } from 'node:crypto';
import { Commit, Deployment, GitApp, Incident, PullRequest, Repository } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli } from '../support/cli';
import { createLab } from '../support/data/metricsHistory';
import { copy, deliverToGithub, githubExamples, ingestCounts } from '../support/peers/ingest';
import { BITBUCKET_PAYLOADS, deliverToBitbucket } from '../support/peers/bitbucket/deliveries';

/**
 * A repository its provider reports deleted is hidden, not erased (docs/ingest.md#a-deleted-repository): out of every
 * list with all it holds, back as it was when the provider delivers for it again or an operator restores it, erased by
 * the retention worker once REPOSITORY_DELETE_GRACE_DAYS (2 here) have passed. The figures count its history until then.
 */

const GRACE_DAYS = 2;
const DAY_MS = 86_400_000;

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000', REPOSITORY_DELETE_GRACE_DAYS: String(GRACE_DAYS) });
  token = await t.token();
});
afterAll(async () => t.close());

const v1 = (path: string) => t.get(path, token);
const total = async (path: string) => {
  const res = await v1(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body.meta.total as number;
};

/** GitHub's examples (@octokit/webhooks-examples), all of the repository Codertocat/Hello-World. */
const example = (event: string, action?: string) => copy(githubExamples(event).find((p) => p.action === action && (event !== 'push' || p.commits.length === 1))!);

/**
 * GitHub's deletion body as it documents it (octokit/webhooks' `repository/deleted.schema.json`: action, repository,
 * sender, and nothing else): its examples have none, so the creation example, deleted, of the examples' repository.
 */
function githubDeletion() {
  const deleted = example('repository', 'created');
  deleted.action = 'deleted';
  deleted.repository = example('push').repository;
  return deleted;
}

/** A lab organization's GitHub git app with one repository holding a commit, a pull request, a deployment and an incident. */
async function githubHistory() {
  const { lab, gitAppId, secret } = await createLab(t, `Deleted ${randomUUID().slice(0, 8)}`);
  const deliver = (event: string, payload: unknown) => deliverToGithub(t, gitAppId, secret, { event, payload });
  const push = example('push');
  push.commits[0].author.email = DEMO.emails.ada;
  const pushed = await deliver('push', push);
  expect(pushed.body.data).toMatchObject({ result: 'applied', repository_created: true, commits_added: 1 });
  expect((await deliver('pull_request', example('pull_request', 'opened'))).body.data.pull_request).toBe('created');
  const review = example('pull_request_review', 'submitted');
  expect((await deliver('pull_request_review', review)).body.data.review).toBe('created');
  const deployment = githubExamples('deployment_status').find((p) => p.deployment_status.state === 'success')!;
  expect((await deliver('deployment_status', deployment)).body.data.deployment).toBe('created');
  const incident = example('issues', 'opened');
  incident.issue.labels = [{ id: 1, name: 'incident', color: 'ff0000', default: false }];
  expect((await deliver('issues', incident)).body.data.incident).toBe('created');
  return { lab, gitAppId, deliver, repositoryId: pushed.body.data.repository_id as string, push };
}

/** Every /v1 read that shows the repository or what it holds, as totals (404 for the repository's own lists). */
async function sightings(gitAppId: string, organizationId: string, repositoryId: string) {
  const pullRequest = await PullRequest.findOne({ where: { repository_id: repositoryId } });
  const own = await v1(`/v1/git/apps/${gitAppId}/repositories/${repositoryId}/commits`);
  const activity = await v1(`/v1/git/apps/${gitAppId}/repositories/all/pull-requests/${pullRequest!.id}/activity`);
  return {
    repositories: await total(`/v1/git/apps/${gitAppId}/repositories`),
    ownCommits: own.status === 200 ? own.body.meta.total : own.status,
    ownDeployments: (await v1(`/v1/git/apps/${gitAppId}/repositories/${repositoryId}/deployments`)).status,
    pullRequestActivity: activity.status === 200 ? activity.body.meta.total : activity.status,
    commits: await total(`/v1/git/apps/${gitAppId}/repositories/all/commits`),
    pullRequests: await total(`/v1/git/apps/${gitAppId}/repositories/all/pull-requests`),
    deployments: await total(`/v1/git/apps/${gitAppId}/repositories/all/deployments`),
    incidents: await total(`/v1/git/apps/${gitAppId}/repositories/all/incidents`),
    everyCommit: (await v1('/v1/commits?created_at[eq]=2019-05-15&per_page=100')).body.data.filter((c: { repository_id: string }) => c.repository_id === repositoryId).length,
    organizationDeployments: await total(`/v1/organizations/${organizationId}/deployments`),
    organizationIncidents: await total(`/v1/organizations/${organizationId}/incidents`),
  };
}

const IN_SIGHT = { repositories: 1, ownCommits: 1, ownDeployments: 200, pullRequestActivity: 1, commits: 1, pullRequests: 1, deployments: 1, incidents: 1, everyCommit: 1, organizationDeployments: 1, organizationIncidents: 1 };
const HIDDEN = { repositories: 0, ownCommits: 404, ownDeployments: 404, pullRequestActivity: 404, commits: 0, pullRequests: 0, deployments: 0, incidents: 0, everyCommit: 0, organizationDeployments: 0, organizationIncidents: 0 };

/** The organization's activity figures over the examples' month. */
const activity = async (organizationId: string, month: string) => (await v1(`/v1/metrics/activity?organization_id=${organizationId}&from=${month}-01&to=${month}-28`)).body.data;

test('GitHub: a deleted repository is hidden from every list with what it holds, the figures still count it, and a push within the grace brings it back as it was', async () => {
  const { lab, gitAppId, deliver, repositoryId, push } = await githubHistory();
  expect(await sightings(gitAppId, lab.organizationId, repositoryId)).toEqual(IN_SIGHT);
  const figures = await activity(lab.organizationId, '2019-05');
  expect(figures).toMatchObject({ commits: 1 });

  const deleted = await deliver('repository', githubDeletion());
  expect(deleted.status).toBe(200);
  expect(deleted.body.data).toMatchObject({ result: 'applied', repository_id: repositoryId, repository_deleted: true });
  expect(await sightings(gitAppId, lab.organizationId, repositoryId)).toEqual(HIDDEN);
  // Nothing is erased yet, and the figures keep counting its history until it is.
  const where = { where: { repository_id: repositoryId } };
  expect([await Commit.count(where), await PullRequest.count(where), await Deployment.count(where), await Incident.count(where)]).toEqual([1, 1, 1, 1]);
  expect(await activity(lab.organizationId, '2019-05')).toEqual(figures);
  // A second report of the deletion does not prolong the grace.
  const hiddenAt = (await Repository.findByPk(repositoryId))!.deleted_at;
  expect(hiddenAt).toBeInstanceOf(Date);
  expect((await deliver('repository', githubDeletion())).body.data).toMatchObject({ repository_deleted: true });
  expect((await Repository.findByPk(repositoryId))!.deleted_at).toEqual(hiddenAt);

  // GitHub delivers for it again: the same repository, with all it held.
  const again = await deliver('push', push);
  expect(again.status).toBe(200);
  expect(again.body.data).toMatchObject({ result: 'applied', repository_id: repositoryId, repository_created: false, repository_restored: true, commits_added: 0 });
  expect(await sightings(gitAppId, lab.organizationId, repositoryId)).toEqual(IN_SIGHT);
  expect((await deliver('push', push)).body.data).not.toHaveProperty('repository_restored');
});

/** Bitbucket's captured push (test/support/peers/bitbucket/README.md), a commit of Ada's, on a new git app of a lab organization. */
async function bitbucketRepository() {
  const { lab } = await createLab(t, `Bitbucket deleted ${randomUUID().slice(0, 8)}`);
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(lab.organizationId, 'bitbucket', 'Bitbucket');
  const deliver = (event: string, payload: unknown) => deliverToBitbucket(t, gitApp.id, secret, { event, payload });
  const push = copy(BITBUCKET_PAYLOADS['repo:push']);
  push.push.changes[0].commits[0].author.raw = `Ada Lovelace <${DEMO.emails.ada}>`;
  const pushed = await deliver('repo:push', push);
  expect(pushed.body.data).toMatchObject({ repository_created: true, commits_added: 1 });
  // No capture of the event was found: its body is the repository and the actor, as the clients that read it parse it.
  const deletion = { repository: push.repository, actor: push.actor };
  return { lab, gitApp, deliver, push, deletion, repositoryId: pushed.body.data.repository_id as string };
}

test('Bitbucket: the retention worker erases a deleted repository once REPOSITORY_DELETE_GRACE_DAYS have passed, not before; the figures then drop it', async () => {
  const { lab, gitApp, deliver, push, deletion, repositoryId } = await bitbucketRepository();
  expect((await deliver('repo:deleted', deletion)).body.data).toMatchObject({ result: 'applied', repository_id: repositoryId, repository_deleted: true });
  expect(await total(`/v1/git/apps/${gitApp.id}/repositories`)).toBe(0);
  expect(await activity(lab.organizationId, '2022-09')).toMatchObject({ commits: 1 });
  const deletedAt = (await Repository.findByPk(repositoryId))!.deleted_at!.getTime();

  // The worker's run a day into the grace keeps it; past the grace, it erases it as a deletion always did.
  expect(await t.runtime.retention.prune(new Date(deletedAt + (GRACE_DAYS - 1) * DAY_MS))).toMatchObject({ repositories: 0 });
  expect(await Commit.count({ where: { repository_id: repositoryId } })).toBe(1);
  expect(await t.runtime.retention.prune(new Date(deletedAt + GRACE_DAYS * DAY_MS + 1))).toMatchObject({ repositories: 1 });
  expect(await Repository.findByPk(repositoryId)).toBeNull();
  expect(await Commit.count({ where: { repository_id: repositoryId } })).toBe(0);
  expect(await activity(lab.organizationId, '2022-09')).toMatchObject({ commits: 0 });

  // Erased, it is gone for good: the provider's next push makes a new repository.
  const after = await deliver('repo:push', push);
  expect(after.body.data).toMatchObject({ result: 'applied', repository_created: true, commits_added: 1 });
  expect(after.body.data.repository_id).not.toBe(repositoryId);
});

describe('npm run gitapps -- restore-repository', () => {
  test('brings a hidden repository back with what it held; refuses one in sight, one unknown or erased, and a call without an id', async () => {
    const gitapps = appCli(t, 'gitapps');
    const { gitApp, deliver, deletion, repositoryId } = await bitbucketRepository();
    await deliver('repo:deleted', deletion);
    expect(await total(`/v1/git/apps/${gitApp.id}/repositories`)).toBe(0);

    const restored = await gitapps('restore-repository', repositoryId, '--json');
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(restored.stdout)).toEqual(expect.objectContaining({ id: repositoryId, full_name: 'martinherren1984/publictestrepo' }));
    expect((await v1(`/v1/git/apps/${gitApp.id}/repositories/${repositoryId}/commits`)).body.meta.total).toBe(1);

    expect(await gitapps('restore-repository', repositoryId)).toMatchObject({
      code: 1,
      stderr: `gitapps: Repository ${repositoryId} (martinherren1984/publictestrepo) is not deleted: there is nothing to restore\n`,
    });
    expect(await gitapps('restore-repository', 'repo_nope')).toMatchObject({ code: 1, stderr: 'gitapps: No repository "repo_nope": it was never stored, or its grace has passed and it was erased\n' });
    expect(await gitapps('restore-repository')).toMatchObject({ code: 2, stderr: expect.stringMatching(/restore-repository needs exactly one repository id/) });

    await deliver('repo:deleted', deletion);
    const human = await gitapps('restore-repository', repositoryId);
    expect(human).toMatchObject({ code: 0, stdout: expect.stringContaining(`Repository ${repositoryId} (martinherren1984/publictestrepo) of git app ${gitApp.id} is back, with its commits, pull requests, deployments and incidents.\n`) });
    expect(await total(`/v1/git/apps/${gitApp.id}/repositories`)).toBe(1);
  });
});

test('an import into a repository its provider reported deleted is refused until it is restored; nothing is written', async () => {
  const { gitApp, deliver, deletion, repositoryId } = await bitbucketRepository();
  await deliver('repo:deleted', deletion);
  const before = await ingestCounts();
  const ref = { providerId: null, name: 'publictestrepo', fullName: 'martinherren1984/publictestrepo', defaultBranch: null, isPrivate: true, createdAt: null };
  const commit = { sha: 'a'.repeat(40), message: 'm', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: new Date('2022-09-08T00:00:00Z') };
  await expect(t.runtime.writers.gitActivity.importCommits((await GitApp.findByPk(gitApp.id))!, ref, [commit])).rejects.toThrow(
    `Repository ${repositoryId} (martinherren1984/publictestrepo) was deleted at its provider; restore it first with npm run gitapps -- restore-repository ${repositoryId}`,
  );
  expect(await ingestCounts()).toEqual(before);
});

test("the lists that leave hidden repositories out read which are hidden once per change of the repositories, not on every request", async () => {
  const path = `/v1/git/apps/${DEMO.gitApps.acmeGithub}/repositories/all/commits?per_page=1`;
  await total(path);
  const query = jest.spyOn(t.runtime.sequelize, 'query');
  try {
    await total(path);
    await total(path);
    expect(query.mock.calls.map(([sql]) => String(sql)).filter((sql) => /FROM `repositories`/.test(sql))).toEqual([]);
  } finally {
    query.mockRestore();
  }
});
