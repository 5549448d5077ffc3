import { Model, ModelStatic, Op, Transaction } from 'sequelize';
import { AuthorRepository, BoardRepository, Commit, Deployment, GitApp, Incident, IncidentRepository, PullRequest, PullRequestActivity, Repository, TeamRepository } from '../../../../db/models';
import { toRepository } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { removeCommitDays } from '../rollups/commitDays';
import { authorsOf, recountAuthorDays } from '../rollups/authorDays';
import { membersActiveIn, recountMemberActiveYears } from '../../activity/memberActiveYears';
import { removeLeadTimes } from '../rollups/leadTimes';
import { removePullRequestSamples } from '../rollups/pullRequestSamples';
import type { RepositoryRef } from '../activity';
import { clip, LIMITS } from '../text';
import { UNPLACED_MARKS } from '../placement';

export interface ResolvedRepository {
  repository: Repository;
  created: boolean;
}

/**
 * The git app's repository a provider names, created on first sight (docs/ingest.md) and kept in step with the
 * provider's name, default branch and visibility. Found by the provider's id, else by full name: a clone
 * imported before its first webhook is the same repository, and adopts the provider's id.
 */
export async function resolveRepository(change: Change, gitApp: GitApp, ref: RepositoryRef, now: Date): Promise<ResolvedRepository> {
  const { transaction } = change;
  const fields = {
    name: clip(ref.name, LIMITS.name),
    full_name: clip(ref.fullName, LIMITS.name),
    is_private: ref.isPrivate,
    ...(ref.defaultBranch === null ? {} : { default_branch: clip(ref.defaultBranch, LIMITS.name) }),
  };
  let repository = await findRepository(gitApp, ref, transaction);
  if (!repository) {
    repository = await Repository.create(
      { id: newId('repo'), git_app_id: gitApp.id, organization_id: gitApp.organization_id, default_branch: 'main', ...fields, provider_id: ref.providerId, created_at: ref.createdAt ?? now },
      { transaction },
    );
    change.wrote('repositories');
    change.emit(gitApp.organization_id, 'repository.created', toRepository(repository));
    return { repository, created: true };
  }
  // MySQL hands booleans back as 0/1.
  const current = { ...fields, ...repository.get({ plain: true }), is_private: Boolean(repository.is_private) };
  const currentValues = new Map<string, unknown>(Object.entries(current));
  const changes: Record<string, unknown> = Object.fromEntries(Object.entries(fields).filter(([key, value]) => currentValues.get(key) !== value));
  if (ref.providerId && repository.provider_id !== ref.providerId) changes.provider_id = ref.providerId;
  if (Object.keys(changes).length) {
    await repository.update(changes, { transaction });
    change.wrote('repositories');
  }
  return { repository, created: false };
}

/** The git app's repository the provider names, by its provider id, else by full name; null on first sight. */
export async function findRepository(gitApp: GitApp, ref: RepositoryRef, transaction: Transaction): Promise<Repository | null> {
  const fullName = clip(ref.fullName, LIMITS.name);
  if (ref.providerId) {
    const byId = await Repository.findOne({ where: { git_app_id: gitApp.id, provider_id: ref.providerId }, transaction });
    if (byId) return byId;
  }
  // A repository of that name with another provider id was deleted and made again at the provider: a new one.
  const providerMatch = ref.providerId ? { [Op.or]: [{ provider_id: null }, { provider_id: ref.providerId }] } : {};
  // A name alone may be both a repository deleted at the provider and the one made again: the one in sight first (nulls sort first).
  return Repository.findOne({ where: { git_app_id: gitApp.id, full_name: fullName, ...providerMatch }, order: [['deleted_at', 'ASC']], transaction });
}

/**
 * A repository deleted at the provider leaves, once its grace has passed (deletedRepositories.ts), with its commits,
 * pull requests, deployments and incidents. Those an app brought (PagerDuty, the deployments API) stay their
 * organization's: an incident in the other repositories its board is mapped to (if any), a deployment unplaced; the
 * boards' mappings to it go.
 */
export async function deleteRepository(change: Change, repository: Repository): Promise<void> {
  const { transaction } = change;
  const where = { repository_id: repository.id };
  await removeCommitDays(transaction, repository);
  await removeLeadTimes(transaction, repository);
  await removePullRequestSamples(transaction, repository);
  const authors = await authorsOf(transaction, repository.id);
  const active = await membersActiveIn(transaction, repository.id);
  const fromApps = { ...where, app_id: { [Op.ne]: null } };
  await BoardRepository.destroy({ where, transaction });
  await IncidentRepository.destroy({ where, transaction });
  await storeUnderNextRepository(transaction, repository.id);
  await Deployment.update({ repository_id: null, git_app_id: null, ...UNPLACED_MARKS }, { where: fromApps, transaction });
  // A team that owned it alone covers, from now on, the repositories its members authored commits in.
  const rowsOfRepository: ModelStatic<Model>[] = [Commit, AuthorRepository, TeamRepository, PullRequest, PullRequestActivity, Deployment, Incident];
  for (const model of rowsOfRepository) await model.destroy({ where, transaction });
  // Read again from the commits left: after them.
  await recountAuthorDays(transaction, repository.organization_id, authors);
  await recountMemberActiveYears(change, repository.organization_id, [...authors, ...active]);
  await repository.destroy({ transaction });
  change.wrote('repositories', 'commits', 'pull_requests', 'pull_request_activities', 'deployments', 'incidents', 'incident_repositories', 'board_repositories', 'team_repositories');
}

/**
 * The app's incidents stored under a repository that leaves: under the next of their board's repositories (the
 * earliest mapped, as boardPlacement.ts places them), or none. Their belonging to the others is already kept.
 */
async function storeUnderNextRepository(transaction: Transaction, repositoryId: string): Promise<void> {
  const next = (column: string) => `(SELECT r.${column} FROM board_repositories b JOIN repositories r ON r.id = b.repository_id
    WHERE b.app_id = incidents.app_id AND b.board_key = incidents.board_key ORDER BY b.created_at, b.repository_id LIMIT 1)`;
  await new ChangeSql(transaction).run(`UPDATE incidents SET repository_id = ${next('id')}, git_app_id = ${next('git_app_id')} WHERE repository_id = :repositoryId AND app_id IS NOT NULL`, { repositoryId });
}
