import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';
import type { IncidentUrgency } from '../vocabulary';
import type { AiEvidence } from '../rollups/aiEvidence';

/** organization_id is copied down from the git app so every git list can be scoped by one index. */
export class Repository extends Model<InferAttributes<Repository>, InferCreationAttributes<Repository>> {
  declare id: string;
  declare git_app_id: string;
  declare organization_id: string;
  declare name: string;
  declare full_name: string;
  declare default_branch: string;
  declare is_private: boolean;
  declare created_at: Date;
  /** The repository's id at its provider (GitHub, GitLab); null for one only imported from a clone. */
  declare provider_id: CreationOptional<string | null>;
  /**
   * When its provider reported it deleted: until erased after REPOSITORY_DELETE_GRACE_DAYS it is hidden from every
   * list, with what it holds, and comes back as it was if the provider delivers for it again. Null: in sight.
   */
  declare deleted_at: CreationOptional<Date | null>;
}

export class Commit extends Model<InferAttributes<Commit>, InferCreationAttributes<Commit>> {
  declare id: string;
  declare repository_id: string;
  declare git_app_id: string;
  declare organization_id: string;
  declare sha: string;
  declare message: string;
  declare author_id: string | null;
  declare author_name: string;
  declare additions: number;
  declare deletions: number;
  declare created_at: Date;
  /** False while additions and deletions are unknown: push payloads carry no line counts; the importer fills them. */
  declare stats_known: CreationOptional<boolean>;
  /** Its message carries an AI coding tool's mark (db/rollups/aiMarkers.ts). */
  declare ai_assisted: CreationOptional<boolean>;
  /** What shows it AI-assisted, the strongest evidence; null: none (db/rollups/aiEvidence.ts). */
  declare ai_evidence: CreationOptional<AiEvidence | null>;
}

export class PullRequest extends Model<InferAttributes<PullRequest>, InferCreationAttributes<PullRequest>> {
  declare id: string;
  declare repository_id: string;
  declare git_app_id: string;
  declare organization_id: string;
  declare number: number;
  declare title: string;
  declare state: 'open' | 'closed' | 'merged';
  declare author_id: string | null;
  /** The provider's own id of its author (GitHub's or GitLab's user id), when a delivery named them. */
  declare author_provider_id: CreationOptional<string | null>;
  declare created_at: Date;
  declare merged_at: Date | null;
  declare closed_at: Date | null;
  /** The provider's time of the state shown: an older delivery arriving late changes nothing. */
  declare provider_updated_at: CreationOptional<Date | null>;
  /** Its description carries an AI coding tool's mark. */
  declare ai_assisted: CreationOptional<boolean>;
  /** Lines, as the provider counts them; null until a delivery says. */
  declare additions: CreationOptional<number | null>;
  declare deletions: CreationOptional<number | null>;
  /** Its head commit and, once merged, the commit that landed it, as the provider last named them. */
  declare head_sha: CreationOptional<string | null>;
  declare merge_commit_sha: CreationOptional<string | null>;
  /** The first review action, and the first approval, by someone other than its author (kept by the review writer). */
  declare first_review_at: CreationOptional<Date | null>;
  declare first_approval_at: CreationOptional<Date | null>;
  /** One of its commits is AI-assisted (kept by the writers: src/services/git/rollups/pullRequestAi.ts). */
  declare has_ai_commit: CreationOptional<boolean>;
  /** A commit was pushed after it opened; the one other person who reviewed it, if one did (pullRequestReviewers.ts). */
  declare iterated: CreationOptional<boolean>;
  declare sole_reviewer_id: CreationOptional<string | null>;
  /** Its author's login as the provider names them, and whether that is a bot's (two bits: db/rollups/botAccounts.ts). */
  declare author_login: CreationOptional<string | null>;
  declare bot: CreationOptional<number>;
  /** A draft now; and the last time it left draft before its merge, null when opened ready (or stored before 0055). */
  declare draft: CreationOptional<boolean>;
  declare ready_for_review_at: CreationOptional<Date | null>;
}

export type DeploymentStatus = 'success' | 'failure';

export class Deployment extends Model<InferAttributes<Deployment>, InferCreationAttributes<Deployment>> {
  declare id: string;
  /** Null for one from an app whose board (the repository name a CI job gave) is not mapped yet: its organization's only. */
  declare repository_id: string | null;
  /** The repository's git app; null with the repository. */
  declare git_app_id: string | null;
  declare organization_id: string;
  /** The app it came from (the deployments API); null for a git provider's. */
  declare app_id: CreationOptional<string | null>;
  /** What its app named as deployed (a repository's full name or id), placed by a mapping of that board. */
  declare board_key: CreationOptional<string | null>;
  /** The deployment's id at its provider: a redelivered or later status updates this row. */
  declare external_id: string;
  declare environment: string;
  declare status: DeploymentStatus;
  declare sha: string;
  declare created_at: Date;
  declare finished_at: Date;
  /** The changes it shipped (or would have: from its environment's previous success) include an AI-assisted commit; kept by the writers (shippedChanges.ts). */
  declare shipped_ai: CreationOptional<boolean>;
  /** An incident of its repository names its commit as the cause; kept by the writers (shippedChanges.ts). */
  declare blamed: CreationOptional<boolean>;
  /** Finished while an incident of its repository was open, or named as an incident's fix (shippedChanges.ts). */
  declare rework: CreationOptional<boolean>;
  /** Failed (status failure, or blamed): when the next clean success of its environment finished; null while none has (db/rollups/recoveries.ts). */
  declare recovered_at: CreationOptional<Date | null>;
  /** Successful: when the first later success of its environment within 720 h reverted or rolled it back (db/rollups/reverts.ts). */
  declare reverted_at: CreationOptional<Date | null>;
}

export type PullRequestActivityKind = 'comment' | 'approved' | 'changes_requested' | 'commit';

/** A review, approval, comment or pushed commit on a pull request (docs/metrics.md#ai-review-and-cost-figures), once per provider id. */
export class PullRequestActivity extends Model<InferAttributes<PullRequestActivity>, InferCreationAttributes<PullRequestActivity>> {
  declare id: string;
  declare pull_request_id: string;
  declare repository_id: string;
  declare git_app_id: string;
  declare organization_id: string;
  declare kind: PullRequestActivityKind;
  /** The member who acted, when their provider user name is bound to the git app. */
  declare actor_id: string | null;
  /** The provider's own id of who acted (GitHub's or GitLab's user id), when the delivery named them. */
  declare actor_provider_id: CreationOptional<string | null>;
  /** Its pull request's author, and whether this is a review action by someone else (kept by the review writer). */
  declare pull_request_author_id: CreationOptional<string | null>;
  declare peer_review: CreationOptional<boolean>;
  /** Who acted, as the provider names them, and whether they or the pull request's author are a bot (db/rollups/botAccounts.ts). */
  declare actor_login: CreationOptional<string | null>;
  declare bot: CreationOptional<number>;
  /** The provider's id of what happened (`review:…`, `note:…`, `commit:<sha>`), unique per pull request. */
  declare external_id: string;
  declare created_at: Date;
}

/**
 * Each member who authored commits in a repository, once (docs/metrics.md: a team's repositories are those its members
 * authored commits in), kept by the commit writer and gone with the repository: a team's scope is read from these
 * few rows, not from a million commits.
 */
export class AuthorRepository extends Model<InferAttributes<AuthorRepository>, InferCreationAttributes<AuthorRepository>> {
  declare user_id: string;
  declare repository_id: string;
  declare organization_id: string;
}

/** A repository an incident belongs to: its board's (each, when mapped to several), or its issue's (docs/incidents.md#mapping). */
export class IncidentRepository extends Model<InferAttributes<IncidentRepository>, InferCreationAttributes<IncidentRepository>> {
  declare incident_id: string;
  declare repository_id: string;
  declare organization_id: string;
}

export class Incident extends Model<InferAttributes<Incident>, InferCreationAttributes<Incident>> {
  declare id: string;
  /** Null for one from an app whose service is not mapped to a repository yet: its organization's only. */
  declare repository_id: string | null;
  /** The repository's git app; null with the repository. */
  declare git_app_id: string | null;
  declare organization_id: string;
  /** The app it came from (PagerDuty, Opsgenie, the deployments API); null for a git provider's issue. */
  declare app_id: CreationOptional<string | null>;
  /** The app's board it came from: a PagerDuty service id, an Opsgenie team or tag, a repository name the API was given. */
  declare board_key: CreationOptional<string | null>;
  /** The incident's id at its provider (an issue's, a PagerDuty incident's, an Opsgenie alert's, the caller's). */
  declare external_id: string;
  declare title: string;
  declare cause_sha: string | null;
  /** The commit that fixed it (`fixed by: <sha>`, or the API's `fix_sha`): its deployment is rework. */
  declare fix_sha: CreationOptional<string | null>;
  declare created_at: Date;
  declare resolved_at: Date | null;
  declare provider_updated_at: CreationOptional<Date | null>;
  /** What its incident tool says of it (docs/incidents.md#what-is-stored), for what counts in time to restore; null when it says nothing. */
  declare urgency: CreationOptional<IncidentUrgency | null>;
  /** PagerDuty's priority by its name, Opsgenie's P1–P5. */
  declare priority: CreationOptional<string | null>;
  /** The name of the PagerDuty service or Opsgenie team it came from. */
  declare service: CreationOptional<string | null>;
}

export function initGit(sequelize: Sequelize): void {
  Repository.init(
    {
      id: { ...ID, primaryKey: true },
      git_app_id: { ...REF },
      organization_id: { ...REF },
      name: { ...NAME },
      full_name: { ...NAME },
      default_branch: { ...NAME },
      is_private: { type: DataTypes.BOOLEAN, allowNull: false },
      created_at: { ...TIMESTAMP },
      provider_id: { type: DataTypes.STRING(100), allowNull: true },
      deleted_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'repositories', modelName: 'repository' },
  );
  Commit.init(
    {
      id: { ...ID, primaryKey: true },
      repository_id: { ...REF },
      git_app_id: { ...REF },
      organization_id: { ...REF },
      sha: { type: DataTypes.STRING(40), allowNull: false },
      message: { type: DataTypes.STRING(500), allowNull: false },
      author_id: { ...OPTIONAL_REF },
      author_name: { ...NAME },
      additions: { type: DataTypes.INTEGER, allowNull: false },
      deletions: { type: DataTypes.INTEGER, allowNull: false },
      created_at: { ...TIMESTAMP },
      stats_known: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      ai_assisted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      ai_evidence: { type: DataTypes.STRING(12), allowNull: true },
    },
    { sequelize, tableName: 'commits', modelName: 'commit' },
  );
  PullRequest.init(
    {
      id: { ...ID, primaryKey: true },
      repository_id: { ...REF },
      git_app_id: { ...REF },
      organization_id: { ...REF },
      number: { type: DataTypes.INTEGER, allowNull: false },
      title: { type: DataTypes.STRING(300), allowNull: false },
      state: { ...SHORT },
      author_id: { ...OPTIONAL_REF },
      author_provider_id: { type: DataTypes.STRING(100), allowNull: true },
      created_at: { ...TIMESTAMP },
      merged_at: { ...OPTIONAL_TIMESTAMP },
      closed_at: { ...OPTIONAL_TIMESTAMP },
      provider_updated_at: { ...OPTIONAL_TIMESTAMP },
      ai_assisted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      additions: { type: DataTypes.INTEGER, allowNull: true },
      deletions: { type: DataTypes.INTEGER, allowNull: true },
      head_sha: { type: DataTypes.STRING(40), allowNull: true },
      merge_commit_sha: { type: DataTypes.STRING(40), allowNull: true },
      first_review_at: { ...OPTIONAL_TIMESTAMP },
      first_approval_at: { ...OPTIONAL_TIMESTAMP },
      has_ai_commit: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      iterated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      sole_reviewer_id: { ...OPTIONAL_REF },
      author_login: { type: DataTypes.STRING(255), allowNull: true },
      bot: { type: DataTypes.TINYINT, allowNull: false, defaultValue: 0 },
      draft: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      ready_for_review_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'pull_requests', modelName: 'pull_request' },
  );
  // Sequelize writes into the definitions it is given: each model gets its own.
  const placement = () => ({
    id: { ...ID, primaryKey: true },
    repository_id: { ...OPTIONAL_REF },
    git_app_id: { ...OPTIONAL_REF },
    organization_id: { ...REF },
    app_id: { ...OPTIONAL_REF },
    board_key: { type: DataTypes.STRING(200), allowNull: true },
    external_id: { type: DataTypes.STRING(100), allowNull: false },
  });
  Deployment.init(
    {
      ...placement(),
      environment: { ...NAME },
      status: { type: DataTypes.STRING(16), allowNull: false },
      sha: { type: DataTypes.STRING(40), allowNull: false },
      created_at: { ...TIMESTAMP },
      finished_at: { ...TIMESTAMP },
      shipped_ai: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      blamed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      rework: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      recovered_at: { ...OPTIONAL_TIMESTAMP },
      reverted_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'deployments', modelName: 'deployment' },
  );
  Incident.init(
    {
      ...placement(),
      title: { type: DataTypes.STRING(300), allowNull: false },
      cause_sha: { type: DataTypes.STRING(40), allowNull: true },
      fix_sha: { type: DataTypes.STRING(40), allowNull: true },
      created_at: { ...TIMESTAMP },
      resolved_at: { ...OPTIONAL_TIMESTAMP },
      provider_updated_at: { ...OPTIONAL_TIMESTAMP },
      urgency: { type: DataTypes.STRING(8), allowNull: true },
      priority: { type: DataTypes.STRING(50), allowNull: true },
      service: { type: DataTypes.STRING(200), allowNull: true },
    },
    { sequelize, tableName: 'incidents', modelName: 'incident' },
  );
  IncidentRepository.init(
    {
      incident_id: { ...REF, primaryKey: true },
      repository_id: { ...REF, primaryKey: true },
      organization_id: { ...REF },
    },
    { sequelize, tableName: 'incident_repositories', modelName: 'incident_repository' },
  );
  PullRequestActivity.init(
    {
      id: { ...ID, primaryKey: true },
      pull_request_id: { ...REF },
      repository_id: { ...REF },
      git_app_id: { ...REF },
      organization_id: { ...REF },
      kind: { type: DataTypes.STRING(32), allowNull: false },
      actor_id: { ...OPTIONAL_REF },
      actor_provider_id: { type: DataTypes.STRING(100), allowNull: true },
      pull_request_author_id: { ...OPTIONAL_REF },
      peer_review: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      actor_login: { type: DataTypes.STRING(255), allowNull: true },
      bot: { type: DataTypes.TINYINT, allowNull: false, defaultValue: 0 },
      external_id: { type: DataTypes.STRING(120), allowNull: false },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'pull_request_activities', modelName: 'pull_request_activity' },
  );
  AuthorRepository.init(
    { user_id: { ...REF, primaryKey: true }, repository_id: { ...REF, primaryKey: true }, organization_id: { ...REF } },
    { sequelize, tableName: 'author_repositories', modelName: 'author_repository' },
  );
}
