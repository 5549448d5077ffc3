import { QueryInterface, Sequelize } from 'sequelize';
import { RunnableMigration, Umzug, SequelizeStorage } from 'umzug';
import { rerunnable } from './rerunnable';
import { onPrimary } from './connection';
import * as initialSchema from './migrations/0001-initial-schema';
import * as memberSortColumns from './migrations/0002-member-sort-columns';
import * as dataVersions from './migrations/0003-data-versions';
import * as writePath from './migrations/0004-write-path';
import * as gitActivity from './migrations/0005-git-activity';
import * as webhooks from './migrations/0006-webhooks';
import * as metrics from './migrations/0007-metrics';
import * as scimProfile from './migrations/0008-scim-profile';
import * as telemetry from './migrations/0009-telemetry';
import * as activeMonthsByTool from './migrations/0010-active-months-by-tool';
import * as aiMarkers from './migrations/0011-ai-markers';
import * as pullRequestActivity from './migrations/0012-pull-request-activity';
import * as costRates from './migrations/0013-cost-rates';
import * as pullRequestCommits from './migrations/0014-pull-request-commits';
import * as authorAiActivity from './migrations/0015-author-ai-activity';
import * as pullRequestReviewTimes from './migrations/0016-pull-request-review-times';
import * as pullRequestAiCommits from './migrations/0017-pull-request-ai-commits';
import * as authorRepositories from './migrations/0018-author-repositories';
import * as shippedChanges from './migrations/0019-shipped-changes';
import * as commitDays from './migrations/0020-commit-days';
import * as leadTimes from './migrations/0021-lead-times';
import * as pullRequestSamples from './migrations/0022-pull-request-samples';
import * as peerReviews from './migrations/0023-peer-reviews';
import * as activityRollups from './migrations/0024-activity-rollups';
import * as completedTasksIndex from './migrations/0025-completed-tasks-index';
import * as taskOrganizations from './migrations/0026-task-organizations';
import * as pullRequestStates from './migrations/0027-pull-request-states';
import * as pullRequestMonths from './migrations/0028-pull-request-months';
import * as settingsSignIn from './migrations/0029-settings-sign-in';
import * as retentionIndexes from './migrations/0030-retention-indexes';
import * as reviewIdentities from './migrations/0031-review-identities';
import * as trackerApps from './migrations/0032-tracker-apps';
import * as incidentApps from './migrations/0033-incident-apps';
import * as aiVendorSources from './migrations/0034-ai-vendor-sources';
import * as aiVendorDays from './migrations/0035-ai-vendor-days';
import * as aiUsageSources from './migrations/0036-ai-usage-sources';
import * as dashboardCatalog from './migrations/0037-dashboard-catalog';
import * as commitAuthorIndexesInOrder from './migrations/0038-commit-author-indexes-in-order';
import * as repositoryDeletionGrace from './migrations/0039-repository-deletion-grace';
import * as connectionStates from './migrations/0040-connection-states';
import * as unmatchedAccounts from './migrations/0041-unmatched-accounts';
import * as organizationDeletionAudit from './migrations/0042-organization-deletion-audit';
import * as scimManagedTeams from './migrations/0043-scim-managed-teams';
import * as connectionCredentials from './migrations/0044-connection-credentials';
import * as historyImports from './migrations/0045-history-imports';
import * as gitlabApprovalIds from './migrations/0046-gitlab-approval-ids';
import * as metricSettings from './migrations/0047-metric-settings';
import * as environmentRollups from './migrations/0048-environment-rollups';
import * as teamRepositories from './migrations/0049-team-repositories';
import * as incidentTriage from './migrations/0050-incident-triage';
import * as deploymentRecoveries from './migrations/0051-deployment-recoveries';
import * as wellbeingDescription from './migrations/0052-wellbeing-description';
import * as aiEvidence from './migrations/0053-ai-evidence';
import * as deploymentReversals from './migrations/0054-deployment-reversals';
import * as readyForReview from './migrations/0055-ready-for-review';
import * as botAccounts from './migrations/0056-bot-accounts';
import * as boardRepositories from './migrations/0057-board-repositories';
import * as memberActiveMonths from './migrations/0058-member-active-months';
import * as aiActiveYears from './migrations/0059-ai-active-years';
import * as leadTimesByRepository from './migrations/0060-lead-times-by-repository';
import * as memberActiveYears from './migrations/0061-member-active-years';

// Listed explicitly (not globbed) so the same list works from TypeScript sources and compiled output.
const migrations: RunnableMigration<QueryInterface>[] = [
  { name: '0001-initial-schema', ...initialSchema },
  { name: '0002-member-sort-columns', ...memberSortColumns },
  { name: '0003-data-versions', ...dataVersions },
  { name: '0004-write-path', ...writePath },
  { name: '0005-git-activity', ...gitActivity },
  { name: '0006-webhooks', ...webhooks },
  { name: '0007-metrics', ...metrics },
  { name: '0008-scim-profile', ...scimProfile },
  { name: '0009-telemetry', ...telemetry },
  { name: '0010-active-months-by-tool', ...activeMonthsByTool },
  { name: '0011-ai-markers', ...aiMarkers },
  { name: '0012-pull-request-activity', ...pullRequestActivity },
  { name: '0013-cost-rates', ...costRates },
  { name: '0014-pull-request-commits', ...pullRequestCommits },
  { name: '0015-author-ai-activity', ...authorAiActivity },
  { name: '0016-pull-request-review-times', ...pullRequestReviewTimes },
  { name: '0017-pull-request-ai-commits', ...pullRequestAiCommits },
  { name: '0018-author-repositories', ...authorRepositories },
  { name: '0019-shipped-changes', ...shippedChanges },
  { name: '0020-commit-days', ...commitDays },
  { name: '0021-lead-times', ...leadTimes },
  { name: '0022-pull-request-samples', ...pullRequestSamples },
  { name: '0023-peer-reviews', ...peerReviews },
  { name: '0024-activity-rollups', ...activityRollups },
  { name: '0025-completed-tasks-index', ...completedTasksIndex },
  { name: '0026-task-organizations', ...taskOrganizations },
  { name: '0027-pull-request-states', ...pullRequestStates },
  { name: '0028-pull-request-months', ...pullRequestMonths },
  { name: '0029-settings-sign-in', ...settingsSignIn },
  { name: '0030-retention-indexes', ...retentionIndexes },
  { name: '0031-review-identities', ...reviewIdentities },
  { name: '0032-tracker-apps', ...trackerApps },
  { name: '0033-incident-apps', ...incidentApps },
  { name: '0034-ai-vendor-sources', ...aiVendorSources },
  { name: '0035-ai-vendor-days', ...aiVendorDays },
  { name: '0036-ai-usage-sources', ...aiUsageSources },
  { name: '0037-dashboard-catalog', ...dashboardCatalog },
  { name: '0038-commit-author-indexes-in-order', ...commitAuthorIndexesInOrder },
  { name: '0039-repository-deletion-grace', ...repositoryDeletionGrace },
  { name: '0040-connection-states', ...connectionStates },
  { name: '0041-unmatched-accounts', ...unmatchedAccounts },
  { name: '0042-organization-deletion-audit', ...organizationDeletionAudit },
  { name: '0043-scim-managed-teams', ...scimManagedTeams },
  { name: '0044-connection-credentials', ...connectionCredentials },
  { name: '0045-history-imports', ...historyImports },
  { name: '0046-gitlab-approval-ids', ...gitlabApprovalIds },
  { name: '0047-metric-settings', ...metricSettings },
  { name: '0048-environment-rollups', ...environmentRollups },
  { name: '0049-team-repositories', ...teamRepositories },
  { name: '0050-incident-triage', ...incidentTriage },
  { name: '0051-deployment-recoveries', ...deploymentRecoveries },
  { name: '0052-wellbeing-description', ...wellbeingDescription },
  { name: '0053-ai-evidence', ...aiEvidence },
  { name: '0054-deployment-reversals', ...deploymentReversals },
  { name: '0055-ready-for-review', ...readyForReview },
  { name: '0056-bot-accounts', ...botAccounts },
  { name: '0057-board-repositories', ...boardRepositories },
  { name: '0058-member-active-months', ...memberActiveMonths },
  { name: '0059-ai-active-years', ...aiActiveYears },
  { name: '0060-lead-times-by-repository', ...leadTimesByRepository },
  { name: '0061-member-active-years', ...memberActiveYears },
];

/** Every migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = migrations.map((m) => m.name);

/** Applied by a start only when the database was new: nothing was there before it. */
export const FIRST_MIGRATION = MIGRATION_NAMES[0];

/**
 * `contextOf` makes the QueryInterface the migrations get: the re-runnable one (tests wrap it to fail a migration
 * on purpose between two steps).
 */
export function createMigrator(sequelize: Sequelize, log: (msg: string) => void = () => {}, contextOf: (qi: QueryInterface) => QueryInterface = rerunnable) {
  return new Umzug({
    migrations,
    context: contextOf(sequelize.getQueryInterface()),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: { info: (e) => log(JSON.stringify(e)), warn: (e) => log(JSON.stringify(e)), error: (e) => log(JSON.stringify(e)), debug: () => {} },
  });
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(sequelize: Sequelize): Promise<string[]> {
  if (sequelize.getDialect() === 'sqlite') {
    await sequelize.query('PRAGMA journal_mode = WAL');
    await sequelize.query('PRAGMA synchronous = NORMAL');
  }
  const applied = await onPrimary(sequelize, () => createMigrator(sequelize).up());
  return applied.map((m) => m.name);
}
