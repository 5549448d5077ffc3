import { Sequelize } from 'sequelize';
import { initPeople, User, UserEmail, Organization, OrganizationMembership, Team, TeamMembership } from './people';
import { initIntegrations, App, UserApp, GitApp, UserGitApp } from './integrations';
import { initGit, Repository, Commit, PullRequest, Deployment, Incident } from './git';
import { initIngest, IngestDelivery } from './ingest';
import { initWork, Task, Interaction, DashboardView, DashboardCatalogEntry } from './work';
import { initTokens, ApiToken, ApiTokenOrganization, ApiTokenTeam, ScimToken } from './tokens';
import { initDataVersions, DataVersion } from './dataVersions';
import { initOutbox, OutboxEvent } from './outbox';
import { initWebhooks, WebhookEndpoint, WebhookDelivery, WebhookAttempt } from './webhooks';
import { initAccessChanges, AccessChange } from './accessChanges';
import { initTelemetry, OtlpToken, TelemetryBatch, TelemetryEvent, TelemetryAccount } from './telemetry';
import { initCosts, CostRate } from './costs';
import { initMetricSettings, MetricRecomputation, MetricSetting, TeamRepository } from './metricSettings';
import { initSettings, AuthSession, LoginLink, AuditEntry } from './settings';

export * from './people';
export * from './integrations';
export * from './git';
export * from './work';
export * from './tokens';
export * from './dataVersions';
export * from './outbox';
export * from './ingest';
export * from './webhooks';
export * from './accessChanges';
export * from './telemetry';
export * from './costs';
export * from './metricSettings';
export * from './settings';

let initialised: Sequelize | undefined;

/** Binds every model to the given connection and declares the associations the list queries join on. */
export function initModels(sequelize: Sequelize): void {
  if (initialised === sequelize) return;
  initialised = sequelize;
  initPeople(sequelize);
  initIntegrations(sequelize);
  initGit(sequelize);
  initWork(sequelize);
  initTokens(sequelize);
  initDataVersions(sequelize);
  initOutbox(sequelize);
  initIngest(sequelize);
  initWebhooks(sequelize);
  initAccessChanges(sequelize);
  initTelemetry(sequelize);
  initCosts(sequelize);
  initMetricSettings(sequelize);
  initSettings(sequelize);

  const noConstraints = { constraints: false };
  OrganizationMembership.belongsTo(User, { as: 'user', foreignKey: 'user_id', ...noConstraints });
  OrganizationMembership.belongsTo(Organization, { as: 'organization', foreignKey: 'organization_id', ...noConstraints });
  TeamMembership.belongsTo(User, { as: 'user', foreignKey: 'user_id', ...noConstraints });
  TeamMembership.belongsTo(Team, { as: 'team', foreignKey: 'team_id', ...noConstraints });
  UserApp.belongsTo(App, { as: 'app', foreignKey: 'app_id', ...noConstraints });
  UserGitApp.belongsTo(GitApp, { as: 'git_app', foreignKey: 'git_app_id', ...noConstraints });
  ApiTokenOrganization.belongsTo(ApiToken, { foreignKey: 'token_id', ...noConstraints });
  ApiTokenTeam.belongsTo(ApiToken, { foreignKey: 'token_id', ...noConstraints });
  // Only a user rate's subject_id is a user id; a tool's name joins no one.
  CostRate.belongsTo(User, { as: 'user', foreignKey: 'subject_id', ...noConstraints });
}

export const models = {
  User,
  UserEmail,
  Organization,
  OrganizationMembership,
  Team,
  TeamMembership,
  App,
  UserApp,
  GitApp,
  UserGitApp,
  Repository,
  Commit,
  PullRequest,
  Deployment,
  Incident,
  IngestDelivery,
  Task,
  Interaction,
  DashboardView,
  DashboardCatalogEntry,
  ApiToken,
  ApiTokenOrganization,
  ApiTokenTeam,
  DataVersion,
  OutboxEvent,
  ScimToken,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  AccessChange,
  OtlpToken,
  TelemetryBatch,
  TelemetryEvent,
  TelemetryAccount,
  CostRate,
  MetricSetting,
  MetricRecomputation,
  TeamRepository,
  AuthSession,
  LoginLink,
  AuditEntry,
};
