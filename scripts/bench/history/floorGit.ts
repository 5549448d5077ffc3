/**
 * The history floor's rows for a git app's page (floor.ts): what the git writers store for its activity and tasks
 * (src/services/git/writer.ts, src/services/work/taskWriter.ts), written with a fixed number of statements a page
 * instead of item by item: the repository on first sight, the pull requests (one read of those stored, one INSERT),
 * their reviews and comments with who they are and whether they are peer reviews, the pull requests' first review and
 * approval (one UPDATE), the code-review interactions, the deployments, the incidents, the tasks, and the outbox
 * events they announce. Not written: the rollups the writers keep beside them (pull_request_samples, days and months,
 * shipped changes, lead times), unmatched accounts, data versions and the import's cursor.
 */
import { createHash } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import { newId } from '../../../src/persistence/changes/ids';
import type { Activity, PullRequestInput, RepositoryRef } from '../../../src/services/git/activity';
import { isPeerReview } from '../../../src/services/git/pullRequests/peerReviews';
import { clip, LIMITS } from '../../../src/services/git/text';
import { hasAiMarker } from '../../../db/rollups/aiMarkers';
import type { TaskInput } from '../../../src/services/work/taskInput';
import { Events, insertInteractions, insertRows, Row, select } from './floorSql';
import { taskRows } from './floorTasks';

export interface FloorGitApp {
  id: string;
  organization_id: string;
  provider: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const storedExternalId = (id: string) => (id.length <= 120 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);

export class GitFloor {
  /** The scope's repository, found or made once (a run reads one scope at a time). */
  private readonly repositories = new Map<string, string>();

  constructor(
    private readonly db: Connection,
    private readonly gitApp: FloorGitApp,
    /** The git app's linked user names (user_git_apps), lower-cased: its members. */
    private readonly members: Map<string, string>,
  ) {}

  /** A page's rows, in one transaction. */
  async page(activities: Activity[], tasks: TaskInput[]): Promise<void> {
    const events = new Events(this.gitApp.organization_id);
    await this.db.beginTransaction();
    const byRepository = new Map<string, { ref: RepositoryRef; activities: Activity[] }>();
    for (const a of activities) {
      const key = a.repository.providerId ?? a.repository.fullName;
      const entry = byRepository.get(key) ?? { ref: a.repository, activities: [] };
      entry.activities.push(a);
      byRepository.set(key, entry);
    }
    for (const { ref, activities: own } of byRepository.values()) {
      const repositoryId = await this.repository(ref, events);
      await this.pullRequests(repositoryId, own, events);
      await this.deployments(repositoryId, own, events);
      await this.incidents(repositoryId, own, events);
    }
    const source = { appId: this.gitApp.id, organizationId: this.gitApp.organization_id };
    await insertRows(this.db, 'tasks', taskRows(source, tasks, (account) => (account?.username ? (this.members.get(account.username.toLowerCase()) ?? null) : null)), { ignore: true });
    await events.write(this.db);
    await this.db.commit();
  }

  private member(username: string | null): string | null {
    return username === null ? null : (this.members.get(username.toLowerCase()) ?? null);
  }

  private async repository(ref: RepositoryRef, events: Events): Promise<string> {
    const key = ref.providerId ?? ref.fullName;
    const known = this.repositories.get(key);
    if (known) return known;
    const [found] = await select(this.db, 'SELECT id FROM repositories WHERE git_app_id = ? AND provider_id = ?', [this.gitApp.id, ref.providerId]);
    let id = found?.id as string | undefined;
    if (!id) {
      id = newId('repo');
      const row = { id, git_app_id: this.gitApp.id, organization_id: this.gitApp.organization_id, name: clip(ref.name, LIMITS.name), full_name: clip(ref.fullName, LIMITS.name), default_branch: clip(ref.defaultBranch ?? 'main', LIMITS.name), is_private: ref.isPrivate, provider_id: ref.providerId, created_at: ref.createdAt ?? new Date() };
      await insertRows(this.db, 'repositories', [row]);
      events.emit('repository.created', { id, git_app_id: row.git_app_id, name: row.name, full_name: row.full_name, default_branch: row.default_branch, is_private: row.is_private, created_at: iso(row.created_at) });
    }
    this.repositories.set(key, id);
    return id;
  }

  /** The page's pull requests (each as its newest view on the page) and their activity. */
  private async pullRequests(repositoryId: string, activities: Activity[], events: Events): Promise<void> {
    const views = new Map<number, PullRequestInput>();
    for (const a of activities) {
      if (a.kind !== 'pull_request' && a.kind !== 'review') continue;
      const seen = views.get(a.pullRequest.number);
      if (!seen || seen.updatedAt < a.pullRequest.updatedAt) views.set(a.pullRequest.number, a.pullRequest);
    }
    if (views.size === 0) return;
    const stored = new Map<number, Row>((await select(this.db, 'SELECT id, number, author_id, author_provider_id FROM pull_requests WHERE repository_id = ? AND number IN (?)', [repositoryId, [...views.keys()]])).map((r) => [Number(r.number), r]));
    const fresh: Row[] = [];
    for (const pr of views.values()) {
      if (stored.has(pr.number)) continue;
      const row = {
        id: newId('pr'),
        repository_id: repositoryId,
        git_app_id: this.gitApp.id,
        organization_id: this.gitApp.organization_id,
        number: pr.number,
        title: clip(pr.title, LIMITS.title),
        state: pr.state,
        author_id: this.member(pr.authorUsername),
        author_provider_id: pr.authorProviderId,
        created_at: pr.createdAt,
        merged_at: pr.mergedAt,
        closed_at: pr.closedAt,
        provider_updated_at: pr.updatedAt,
        ai_assisted: hasAiMarker(pr.body),
        additions: pr.size?.additions ?? null,
        deletions: pr.size?.deletions ?? null,
        head_sha: pr.commits.head,
        merge_commit_sha: pr.commits.merge,
      };
      fresh.push(row);
      stored.set(pr.number, row);
      const item = { id: row.id, repository_id: repositoryId, number: row.number, title: row.title, state: row.state, author_id: row.author_id, additions: row.additions, deletions: row.deletions, ai_assisted: row.ai_assisted, created_at: iso(row.created_at), merged_at: iso(row.merged_at), closed_at: iso(row.closed_at) };
      events.emit('pull_request.opened', item);
      if (row.state !== 'open') events.emit(`pull_request.${row.state}`, item);
    }
    await insertRows(this.db, 'pull_requests', fresh);
    await this.reviews(repositoryId, activities, stored);
  }

  private async reviews(repositoryId: string, activities: Activity[], pulls: Map<number, Row>): Promise<void> {
    const rows: Row[] = [];
    for (const a of activities) {
      if (a.kind !== 'review' || a.review.onlyIfHeadMoved) continue;
      const pull = pulls.get(a.pullRequest.number)!;
      const actorId = this.member(a.review.actorUsername);
      const author = { memberId: (pull.author_id as string | null) ?? null, providerId: (pull.author_provider_id as string | null) ?? null };
      rows.push({
        id: newId('pra'),
        pull_request_id: pull.id,
        external_id: storedExternalId(a.review.externalId),
        repository_id: repositoryId,
        git_app_id: this.gitApp.id,
        organization_id: this.gitApp.organization_id,
        kind: a.review.kind,
        actor_id: actorId,
        actor_provider_id: a.review.actorProviderId,
        pull_request_author_id: author.memberId,
        peer_review: isPeerReview(a.review.kind, { memberId: actorId, providerId: a.review.actorProviderId }, author),
        created_at: a.review.createdAt,
      });
    }
    if (rows.length === 0) return;
    await insertRows(this.db, 'pull_request_activities', rows, { ignore: true });
    const reviewed = [...new Set(rows.filter((r) => r.peer_review).map((r) => r.pull_request_id))];
    if (reviewed.length) {
      await this.db.query(
        `UPDATE pull_requests p JOIN (SELECT pull_request_id, MIN(created_at) AS reviewed, MIN(CASE WHEN kind = 'approved' THEN created_at END) AS approved
           FROM pull_request_activities WHERE pull_request_id IN (?) AND peer_review = 1 GROUP BY pull_request_id) a ON a.pull_request_id = p.id
         SET p.first_review_at = a.reviewed, p.first_approval_at = a.approved`,
        [reviewed],
      );
    }
    await insertInteractions(
      this.db,
      rows
        .filter((r) => r.peer_review && r.actor_id && r.pull_request_author_id)
        .map((r) => ({ organization_id: this.gitApp.organization_id, type: 'code_review', source: this.gitApp.provider, user_id: r.actor_id as string, counterpart_id: r.pull_request_author_id as string, created_at: r.created_at as Date, source_ref: `review:${String(r.id)}` })),
    );
  }

  private async deployments(repositoryId: string, activities: Activity[], events: Events): Promise<void> {
    const rows = activities.flatMap((a) =>
      a.kind === 'deployment'
        ? [{ id: newId('dep'), repository_id: repositoryId, git_app_id: this.gitApp.id, organization_id: this.gitApp.organization_id, app_id: null, board_key: null, external_id: a.deployment.externalId, environment: clip(a.deployment.environment, LIMITS.environment), status: a.deployment.status, sha: a.deployment.sha, created_at: a.deployment.createdAt, finished_at: a.deployment.finishedAt }]
        : [],
    );
    await insertRows(this.db, 'deployments', rows, { ignore: true });
    for (const d of rows) events.emit(d.status === 'success' ? 'deployment.succeeded' : 'deployment.failed', { id: d.id, repository_id: repositoryId, app_id: null, service: null, environment: d.environment, status: d.status, sha: d.sha, created_at: iso(d.created_at), finished_at: iso(d.finished_at) });
  }

  private async incidents(repositoryId: string, activities: Activity[], events: Events): Promise<void> {
    const rows = activities.flatMap((a) =>
      a.kind === 'incident'
        ? [{ id: newId('inc'), repository_id: repositoryId, git_app_id: this.gitApp.id, organization_id: this.gitApp.organization_id, app_id: null, board_key: null, external_id: a.incident.externalId, title: clip(a.incident.title, LIMITS.title), cause_sha: a.incident.causeSha, fix_sha: a.incident.fixSha, created_at: a.incident.createdAt, resolved_at: a.incident.resolvedAt, provider_updated_at: a.incident.updatedAt }]
        : [],
    );
    await insertRows(this.db, 'incidents', rows, { ignore: true });
    // Each belongs to its repository, as the incident writer keeps it (incident_repositories).
    await insertRows(this.db, 'incident_repositories', rows.map((i) => ({ incident_id: i.id, repository_id: repositoryId, organization_id: i.organization_id })), { ignore: true });
    for (const i of rows) {
      const item = { id: i.id, repository_id: repositoryId, app_id: null, service: null, title: i.title, cause_sha: i.cause_sha, fix_sha: i.fix_sha, created_at: iso(i.created_at), resolved_at: iso(i.resolved_at) };
      events.emit('incident.opened', { ...item, resolved_at: null });
      if (i.resolved_at) events.emit('incident.resolved', item);
    }
  }
}
