import { GitApp, IngestDelivery, Repository } from '../../../db/models';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import type { Activity, CommitInput, Outcome, RepositoryRef } from './activity';
import { knowAccounts } from './authors';
import { recordCommits } from './commits/commits';
import { recordDeployments } from './deployments/deployments';
import { recordIncident } from './incidents/incidents';
import type { Placement } from './placement';
import { recordPullRequestItems } from './pullRequests/reviews';
import { findRepository, resolveRepository } from './repositories/repositories';
import { hideRepository, restoreHiddenRepository, restoreRepository } from './repositories/deletedRepositories';
import { conflict } from '../../errors';
import type { ProviderCatalog } from '../apps/catalog';
import { recordDelivery } from '../apps/connectionStates';

/** A provider's delivery: which git app it came to, its id (for deduplication) and its event name. */
export interface Delivery {
  gitApp: GitApp;
  id: string;
  event: string;
}

export interface ImportBatch {
  repositoryId: string;
  added: number;
  statsFilled: number;
}

/**
 * Stores git activity (docs/ingest.md) on the write path of docs/architecture.md#writers: each delivery, and each import batch, is one change
 * with its events. A delivery is recorded in its own change, so a redelivery (same id) finds it and changes
 * nothing; the rows themselves are unique (commits per sha, pull requests per number, ...), so activity that
 * arrives twice by different routes (a push and an import) is stored once.
 */
export class GitActivityWriter {
  constructor(
    private readonly changes: ChangeRunner,
    /** The registry's providers: whether a git app's provider abbreviates the shas it names. */
    private readonly providers: ProviderCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  receive(delivery: Delivery, activity: Activity): Promise<Outcome> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const key = { app_id: delivery.gitApp.id, delivery_id: delivery.id };
      if (await IngestDelivery.findOne({ where: key, attributes: ['delivery_id'], transaction })) return { result: 'duplicate' };
      await IngestDelivery.create({ ...key, event: delivery.event, received_at: this.now() }, { transaction });
      const outcome = await this.apply(change, delivery.gitApp, activity);
      // Last, after the rollups the steps left for the end of the change, so concurrent deliveries of one git app
      // wait for each other's state row only at their end.
      const at = this.now();
      change.beforeCommit(() => recordDelivery(transaction, { connectionId: delivery.gitApp.id, organizationId: delivery.gitApp.organization_id }, delivery.event, at));
      return outcome;
    });
  }

  /**
   * Activity read from the provider's history within a change another service runs (src/services/history/historyPages.ts),
   * applied as a delivery's is, without a delivery to record: each one's outcome, in order.
   */
  async importInto(change: Change, gitApp: GitApp, activities: Activity[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    // Every item of a page names its repository, the same way: resolved by the first, as it left it for the next.
    const last: LastResolved = {};
    await knowAccounts(change, gitApp, activities.flatMap(accountsNamed));
    // A run of pull requests and reviews of one repository (a page of merge requests, a merge request's notes, a pull
    // request's log), or of its deployments, is stored together.
    for (let start = 0; start < activities.length; ) {
      const pullRequests = runFrom(activities, start, isPullRequestActivity);
      const deployments = runFrom(activities, start, isDeploymentActivity);
      if (pullRequests.length) outcomes.push(...(await this.applyPullRequestItems(change, gitApp, pullRequests, last)));
      else if (deployments.length) outcomes.push(...(await this.applyDeployments(change, gitApp, deployments, last)));
      else outcomes.push(await this.apply(change, gitApp, activities[start], last));
      start += Math.max(pullRequests.length, deployments.length, 1);
    }
    return outcomes;
  }

  /** Commits of a clone (npm run import -- git), one batch per change. */
  importCommits(gitApp: GitApp, repository: RepositoryRef, commits: CommitInput[]): Promise<ImportBatch> {
    return this.changes.run(async (change) => {
      // A clone knows less of its repository than the provider: an existing one is taken as it is.
      const repo = (await findRepository(gitApp, repository, change.transaction)) ?? (await resolveRepository(change, gitApp, repository, this.now())).repository;
      // Its provider said it was deleted: an import is no word of the provider's that it is back.
      if (repo.deleted_at) throw conflict(`Repository ${repo.id} (${repo.full_name}) was deleted at its provider; restore it first with npm run gitapps -- restore-repository ${repo.id}`);
      const { added, statsFilled } = await recordCommits(change, gitApp, repo, commits, this.abbreviatesShas(gitApp));
      return { repositoryId: repo.id, added, statsFilled };
    });
  }

  /** An operator's restore of a repository its provider reported deleted, within its grace (docs/ingest.md#a-deleted-repository). */
  restoreRepository(repositoryId: string): Promise<Repository> {
    return this.changes.run((change) => restoreHiddenRepository(change, repositoryId));
  }

  private abbreviatesShas(gitApp: GitApp): boolean {
    return this.providers.find(gitApp.provider)?.abbreviatesShas === true;
  }

  private async apply(change: Change, gitApp: GitApp, activity: Activity, last: LastResolved = {}): Promise<Outcome> {
    if (activity.kind === 'repository' && activity.action === 'deleted') {
      delete last.repository;
      // Hidden until its grace has passed, then erased by the retention worker.
      const known = await findRepository(gitApp, activity.repository, change.transaction);
      if (known) await hideRepository(change, known, this.now());
      return { result: 'applied', repository_id: known?.id, repository_deleted: Boolean(known) };
    }
    if (isPullRequestActivity(activity)) return (await this.applyPullRequestItems(change, gitApp, [activity], last))[0];
    if (isDeploymentActivity(activity)) return (await this.applyDeployments(change, gitApp, [activity], last))[0];
    const { repository, outcome } = await this.resolve(change, gitApp, activity.repository, last);
    switch (activity.kind) {
      case 'repository':
        return outcome;
      case 'push': {
        const { added } = await recordCommits(change, gitApp, repository, activity.commits, this.abbreviatesShas(gitApp));
        // What the provider left out comes with the clone's import (docs/ingest.md#bitbucket-cloud).
        return { ...outcome, commits_added: added, ...(activity.truncated ? { commits_truncated: true } : {}) };
      }
      case 'incident':
        return { ...outcome, incident: await recordIncident(change, gitPlacement(gitApp, repository), activity.incident) };
    }
  }

  /** Pull requests and reviews of one repository, each with its outcome, in order. */
  private async applyPullRequestItems(change: Change, gitApp: GitApp, activities: PullRequestActivity[], last: LastResolved): Promise<Outcome[]> {
    const { repository, outcome } = await this.resolve(change, gitApp, activities[0].repository, last);
    const items = activities.map((a) => (a.kind === 'review' ? { pullRequest: a.pullRequest, current: a.pullRequestCurrent, review: a.review } : { pullRequest: a.pullRequest, current: true }));
    const recorded = await recordPullRequestItems(change, gitApp, repository, items);
    return recorded.map((r, i) => ({ ...(i === 0 ? outcome : resolvedBefore(repository)), pull_request: r.pullRequest, ...(r.review ? { review: r.review } : {}) }));
  }

  /** Deployments of one repository, each with its outcome, in order. */
  private async applyDeployments(change: Change, gitApp: GitApp, activities: DeploymentActivity[], last: LastResolved): Promise<Outcome[]> {
    const { repository, outcome } = await this.resolve(change, gitApp, activities[0].repository, last);
    const applied = await recordDeployments(change, gitPlacement(gitApp, repository), activities.map((a) => a.deployment));
    return applied.map((deployment, i) => ({ ...(i === 0 ? outcome : resolvedBefore(repository)), deployment }));
  }

  /** The repository an item names, as the item before left it when it named the same: made, or restored, as the provider says. */
  private async resolve(change: Change, gitApp: GitApp, ref: RepositoryRef, last: LastResolved): Promise<{ repository: Repository; outcome: Outcome }> {
    const said = JSON.stringify(ref);
    const known = last.said === said ? last.repository : undefined;
    const { repository, created } = known ? { repository: known, created: false } : await resolveRepository(change, gitApp, ref, this.now());
    // The provider delivers for it again: a deletion reported within the grace is undone.
    const restored = !known && (await restoreRepository(change, repository));
    Object.assign(last, { said, repository });
    return { repository, outcome: { result: 'applied', repository_id: repository.id, repository_created: created, ...(restored ? { repository_restored: true } : {}) } };
  }
}

/** An item about a pull request: the pull request itself, or a review of it. */
type PullRequestActivity = Extract<Activity, { kind: 'pull_request' | 'review' }>;
type DeploymentActivity = Extract<Activity, { kind: 'deployment' }>;

const isPullRequestActivity = (activity: Activity): activity is PullRequestActivity => activity.kind === 'pull_request' || activity.kind === 'review';
const isDeploymentActivity = (activity: Activity): activity is DeploymentActivity => activity.kind === 'deployment';

/** The outcome of a run's later item: the run's repository was resolved once, and the later items found it as the first left it. */
const resolvedBefore = (repository: Repository): Outcome => ({ result: 'applied', repository_id: repository.id, repository_created: false });

/** The items from `start` on of a kind that name the repository the first names, in the same words (none when the first is of another kind). */
function runFrom<T extends Activity>(activities: Activity[], start: number, ofKind: (activity: Activity) => activity is T): T[] {
  const said = JSON.stringify(activities[start].repository);
  const run: T[] = [];
  for (let i = start; i < activities.length; i++) {
    const activity = activities[i];
    if (JSON.stringify(activity.repository) !== said || !ofKind(activity)) break;
    run.push(activity);
  }
  return run;
}

/** The provider accounts an item names: whoever opened its pull request, and who reviewed it. */
const accountsNamed = (activity: Activity): (string | null)[] =>
  activity.kind === 'pull_request' ? [activity.pullRequest.authorUsername] : activity.kind === 'review' ? [activity.pullRequest.authorUsername, activity.review.actorUsername] : [];

/**
 * The repository the change's last item named and what the provider said of it: an item that says the same finds it
 * as resolving it again would (it exists, in step with what was said, not deleted), without reading it again.
 */
type LastResolved = { said?: string; repository?: Repository };

const gitPlacement = (gitApp: GitApp, repository: Repository): Placement => ({ organizationId: gitApp.organization_id, repository, source: { gitAppId: gitApp.id } });
