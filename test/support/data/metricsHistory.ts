import { createHash, randomUUID } from 'node:crypto';
import { refreshShippedChanges } from '../../../src/services/git/rollups/shippedChanges';
import { addToCommitDays } from '../../../src/services/git/rollups/commitDays';
import { addToAuthorDays } from '../../../src/services/git/rollups/authorDays';
import { recountInteractionDays } from '../../../src/services/activity/interactionDays';
import { addWorkDays } from '../../../src/services/activity/memberActiveYears';
import { ChangeRunner } from '../../../src/persistence/changes/change';
import { refreshLeadTimes } from '../../../src/services/git/rollups/leadTimes';
import { refreshPullRequestSamples } from '../../../src/services/git/rollups/pullRequestSamples';
import { AuthorRepository, Commit, Deployment, Incident, IncidentRepository, Interaction, Organization, PullRequest, Repository, Task } from '../../../db/models';
import { newId } from '../../../src/persistence/changes/ids';
import type { TestApp } from '../harness';
import { DEMO } from '../harness';
import { copy, deliverToGithub, githubExamples } from '../peers/ingest';

/**
 * A small scripted history whose every figure the metrics tests work out by hand (test/metrics/metrics.test.ts): two
 * repositories of a fresh organization "Lab", api (commits by ada, member of team Core) and web (by grace, in no
 * team), a week of deployments in March 2026 around it, incidents, pull requests, tasks and interactions.
 */
/** A commit's sha: 40 hex digits, one per key. */
export const sha = (key: string) => createHash('sha1').update(`lab ${key}`).digest('hex');

export const COMMITS = [
  { key: 'c0', repo: 'api', at: '2026-02-27T10:00:00Z' },
  { key: 'c1', repo: 'api', at: '2026-03-01T08:00:00Z' },
  { key: 'c2', repo: 'api', at: '2026-03-02T06:00:00Z' },
  { key: 'c3', repo: 'api', at: '2026-03-03T09:00:00Z' },
  { key: 'c4', repo: 'api', at: '2026-03-03T18:00:00Z' },
  { key: 'c5', repo: 'api', at: '2026-03-05T11:00:00Z' },
  { key: 'c6', repo: 'api', at: '2026-03-08T20:00:00Z' },
  { key: 'c7', repo: 'web', at: '2026-03-06T10:00:00Z' },
] as const;

export const DEPLOYMENTS = [
  { key: 'D0', repo: 'api', environment: 'production', status: 'success', commit: 'c0', finished: '2026-02-28T12:00:00Z' },
  { key: 'D1', repo: 'api', environment: 'production', status: 'success', commit: 'c2', finished: '2026-03-02T12:00:00Z' },
  { key: 'D2', repo: 'api', environment: 'production', status: 'failure', commit: 'c3', finished: '2026-03-03T12:00:00Z' },
  // On the stroke of midnight: it belongs to March 4.
  { key: 'D3', repo: 'api', environment: 'production', status: 'success', commit: 'c4', finished: '2026-03-04T00:00:00Z' },
  { key: 'D4', repo: 'api', environment: 'staging', status: 'success', commit: 'c4', finished: '2026-03-05T10:00:00Z' },
  { key: 'D5', repo: 'api', environment: 'production', status: 'success', commit: 'c5', finished: '2026-03-05T12:00:00Z' },
  { key: 'D6', repo: 'api', environment: 'production', status: 'success', commit: 'c6', finished: '2026-03-09T10:00:00Z' },
  { key: 'D7', repo: 'web', environment: 'production', status: 'success', commit: 'c7', finished: '2026-03-06T12:00:00Z' },
] as const;

export const INCIDENTS = [
  // Names D5's commit by its 7-character abbreviation.
  { key: 'I1', repo: 'api', opened: '2026-03-05T13:00:00Z', resolved: '2026-03-05T15:30:00Z', cause: 'c5' },
  { key: 'I2', repo: 'api', opened: '2026-03-06T09:00:00Z', resolved: '2026-03-07T09:00:00Z', cause: null },
  { key: 'I3', repo: 'api', opened: '2026-03-07T10:00:00Z', resolved: null, cause: null },
] as const;

export const PULL_REQUESTS = [
  { number: 1, opened: '2026-03-01T10:00:00Z', merged: '2026-03-03T10:00:00Z', closed: '2026-03-03T10:00:00Z', state: 'merged' },
  { number: 2, opened: '2026-03-02T09:00:00Z', merged: '2026-03-02T21:00:00Z', closed: '2026-03-02T21:00:00Z', state: 'merged' },
  { number: 3, opened: '2026-03-04T08:00:00Z', merged: null, closed: '2026-03-05T08:00:00Z', state: 'closed' },
  { number: 4, opened: '2026-03-06T12:00:00Z', merged: null, closed: null, state: 'open' },
  { number: 5, opened: '2026-02-25T00:00:00Z', merged: null, closed: null, state: 'open' },
] as const;

export const TASKS = [
  { type: 'story', status: 'done', created: '2026-03-01T00:00:00Z', completed: '2026-03-03T00:00:00Z' },
  { type: 'bug', status: 'done', created: '2026-03-02T00:00:00Z', completed: '2026-03-02T06:00:00Z' },
  { type: 'task', status: 'done', created: '2026-03-02T00:00:00Z', completed: '2026-03-05T00:00:00Z' },
  { type: 'story', status: 'active', created: '2026-03-04T00:00:00Z', completed: null },
  { type: 'bug', status: 'done', created: '2026-03-09T00:00:00Z', completed: '2026-03-10T00:00:00Z' },
] as const;

export const INTERACTIONS = [
  { type: 'code_review', source: 'github', team: true, at: '2026-03-02T10:00:00Z' },
  { type: 'task_assignment', source: 'jira', team: true, at: '2026-03-03T10:00:00Z' },
  { type: 'communication', source: 'slack', team: false, at: '2026-03-04T10:00:00Z' },
] as const;

export interface Lab {
  organizationId: string;
  /** ada and grace's organization: ada (admin) in team Core, grace in none. */
  core: string;
  /** A team whose only member authored no commit: no repositories. */
  empty: string;
  repositories: Record<'api' | 'web', string>;
}

const authorOf = (repo: 'api' | 'web') => (repo === 'api' ? { id: DEMO.users.ada, email: DEMO.emails.ada, name: 'Ada' } : { id: DEMO.users.grace, email: DEMO.emails.grace, name: 'Grace' });

/** The organization with ada, grace and margaret, team Core (ada), team Empty (margaret), and a GitHub git app. */
export async function createLab(t: TestApp, name: string): Promise<{ lab: Omit<Lab, 'repositories'>; gitAppId: string; secret: string }> {
  const organizationId = newId('org');
  await Organization.create({ id: organizationId, name, created_at: new Date('2026-01-01T00:00:00Z') });
  const member = (email: string, name: string) => ({ email, name, role: 'admin' as const, active: true, externalId: null, title: null });
  await t.runtime.writers.members.provision(organizationId, member(DEMO.emails.ada, 'Ada Lovelace'));
  await t.runtime.writers.members.provision(organizationId, member(DEMO.emails.grace, 'Grace Hopper'));
  await t.runtime.writers.members.provision(organizationId, member(DEMO.emails.margaret, 'Margaret Hamilton'));
  const core = await t.runtime.writers.teams.create(organizationId, { name: 'Core', externalId: null }, [DEMO.users.ada]);
  const empty = await t.runtime.writers.teams.create(organizationId, { name: 'Empty', externalId: null }, [DEMO.users.margaret]);
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(organizationId, 'github', `GitHub ${name}`);
  return { lab: { organizationId, core: core.id, empty: empty.id }, gitAppId: gitApp.id, secret };
}

/** The history written by this helper, row by row, as a provider would leave it. */
export async function insertHistory(t: TestApp): Promise<Lab> {
  const { lab, gitAppId } = await createLab(t, 'Lab (inserted)');
  const placement = { git_app_id: gitAppId, organization_id: lab.organizationId };
  const repositories = { api: newId('repo'), web: newId('repo') };
  for (const repo of ['api', 'web'] as const) {
    await Repository.create({ id: repositories[repo], ...placement, name: repo, full_name: `lab/${repo}`, default_branch: 'main', is_private: false, created_at: new Date('2026-01-01T00:00:00Z') });
  }
  for (const c of COMMITS) {
    const author = authorOf(c.repo);
    await Commit.create({ id: newId('cmt'), repository_id: repositories[c.repo], ...placement, sha: sha(c.key), message: c.key, author_id: author.id, author_name: author.name, additions: 1, deletions: 0, created_at: new Date(c.at) });
    // As the commit writer keeps it (a team's repositories are read from it).
    await AuthorRepository.bulkCreate([{ user_id: author.id, repository_id: repositories[c.repo], organization_id: lab.organizationId }], { ignoreDuplicates: true });
  }
  for (const d of DEPLOYMENTS) {
    await Deployment.create({ id: newId('dep'), repository_id: repositories[d.repo], ...placement, external_id: d.key, environment: d.environment, status: d.status, sha: sha(d.commit), created_at: new Date(new Date(d.finished).getTime() - 600_000), finished_at: new Date(d.finished) });
  }
  for (const i of INCIDENTS) {
    const incident = await Incident.create({ id: newId('inc'), repository_id: repositories[i.repo], ...placement, external_id: i.key, title: i.key, cause_sha: i.cause ? sha(i.cause).slice(0, 7) : null, created_at: new Date(i.opened), resolved_at: i.resolved ? new Date(i.resolved) : null });
    // As the incident writer keeps it: an issue's incident belongs to its repository.
    await IncidentRepository.create({ incident_id: incident.id, repository_id: repositories[i.repo], organization_id: lab.organizationId });
  }
  // What the commit, deployment and incident writers keep beside the rows.
  for (const id of Object.values(repositories)) await refreshShippedChanges(null, id, null);
  await ChangeRunner.for(Commit.sequelize!).run(async (change) => {
    const { transaction } = change;
    for (const repo of ['api', 'web'] as const) {
      const days = COMMITS.filter((c) => c.repo === repo).map((c) => ({ createdAt: new Date(c.at), commits: 1 as const, evidence: null }));
      await addToCommitDays(transaction, { id: repositories[repo], organization_id: lab.organizationId }, days);
      await addToAuthorDays(transaction, { organization_id: lab.organizationId }, COMMITS.filter((c) => c.repo === repo).map((c) => ({ author_id: authorOf(repo).id, created_at: new Date(c.at) })));
      addWorkDays(change, lab.organizationId, COMMITS.filter((c) => c.repo === repo).map((c) => ({ userId: authorOf(repo).id, at: new Date(c.at) })));
      await refreshLeadTimes(transaction, { id: repositories[repo], organization_id: lab.organizationId }, null);
    }
  });
  const pullRequests: PullRequest[] = [];
  for (const p of PULL_REQUESTS) {
    pullRequests.push(await PullRequest.create({ id: newId('pr'), repository_id: repositories.api, ...placement, number: p.number, title: `PR ${p.number}`, state: p.state, author_id: DEMO.users.ada, created_at: new Date(p.opened), merged_at: p.merged ? new Date(p.merged) : null, closed_at: p.closed ? new Date(p.closed) : null }));
  }
  // What the pull request writer keeps beside them.
  await ChangeRunner.for(PullRequest.sequelize!).run(async (change) => {
    await refreshPullRequestSamples(change.transaction, pullRequests.map((p) => p.id));
    addWorkDays(change, lab.organizationId, pullRequests.map((p) => ({ userId: p.author_id, at: p.created_at })));
  });
  for (const k of TASKS) {
    await Task.create({ id: newId('task'), team_id: lab.core, organization_id: lab.organizationId, title: k.type, type: k.type, status: k.status, assignee_id: DEMO.users.ada, parent_id: null, story_points: null, created_at: new Date(k.created), completed_at: k.completed ? new Date(k.completed) : null });
  }
  for (const i of INTERACTIONS) {
    await Interaction.create({ id: newId('int'), organization_id: lab.organizationId, type: i.type, source: i.source, user_id: DEMO.users.ada, counterpart_id: DEMO.users.grace, team_id: i.team ? lab.core : null, created_at: new Date(i.at) });
  }
  // What whoever stores interactions keeps beside them.
  await Interaction.sequelize!.transaction((transaction) => recountInteractionDays(transaction, lab.organizationId));
  return { ...lab, repositories };
}

/** The same git history delivered as GitHub sends it: pushes, deployment statuses and labelled issues, signed. */
export async function deliverHistory(t: TestApp): Promise<Omit<Lab, 'repositories'> & { deliver: (event: string, payload: unknown) => Promise<void> }> {
  const { lab, gitAppId, secret } = await createLab(t, 'Lab (delivered)');
  const deliver = async (event: string, payload: unknown) => {
    const res = await deliverToGithub(t, gitAppId, secret, { event, payload, id: randomUUID() });
    if (res.status !== 200) throw new Error(`${event}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const pushExample = githubExamples('push').find((p) => p.commits.length === 1)!;
  const repositoryOf = (repo: 'api' | 'web', template: Record<string, any>) => ({
    ...template,
    id: repo === 'api' ? 9001 : 9002,
    node_id: `R_${repo}`,
    name: repo,
    full_name: `lab/${repo}`,
  });
  for (const c of COMMITS) {
    const payload = copy(pushExample);
    const author = authorOf(c.repo);
    payload.repository = repositoryOf(c.repo, payload.repository);
    payload.after = sha(c.key);
    payload.commits = [{ ...payload.commits[0], id: sha(c.key), tree_id: sha(c.key), message: c.key, timestamp: c.at, author: { name: author.name, email: author.email, username: author.name.toLowerCase() } }];
    payload.head_commit = payload.commits[0];
    await deliver('push', payload);
  }
  const [statusExample] = githubExamples('deployment_status');
  for (const [n, d] of DEPLOYMENTS.entries()) {
    const payload = copy(statusExample);
    payload.repository = repositoryOf(d.repo, payload.repository);
    payload.deployment = { ...payload.deployment, id: 5000 + n, sha: sha(d.commit), environment: d.environment, created_at: new Date(new Date(d.finished).getTime() - 600_000).toISOString() };
    payload.deployment_status = { ...payload.deployment_status, state: d.status, created_at: d.finished, updated_at: d.finished, environment: d.environment };
    await deliver('deployment_status', payload);
  }
  const issueExample = githubExamples('issues').find((p) => p.action === 'opened')!;
  for (const [n, i] of INCIDENTS.entries()) {
    const payload = copy(issueExample);
    payload.repository = repositoryOf(i.repo, payload.repository);
    payload.issue = {
      ...payload.issue,
      id: 7000 + n,
      number: 100 + n,
      title: i.key,
      labels: [{ ...payload.issue.labels[0], id: 1, name: 'incident' }],
      body: i.cause ? `Checkout fails.\n\nroot cause: ${sha(i.cause).slice(0, 7)}` : 'Checkout fails.',
      created_at: i.opened,
      updated_at: i.opened,
      state: 'open',
      closed_at: null,
    };
    await deliver('issues', payload);
    if (i.resolved) {
      const closed = copy(payload);
      closed.action = 'closed';
      closed.issue = { ...closed.issue, state: 'closed', closed_at: i.resolved, updated_at: i.resolved };
      await deliver('issues', closed);
    }
  }
  return { ...lab, deliver };
}
