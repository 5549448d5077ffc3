import type { Config } from '../config';
import type { ChangeRunner } from '../persistence/changes/change';
import type { SecretBox } from '../secrets/secretBox';
import { MemberWriter } from '../services/people/members';
import { MemberAdministration } from '../services/people/memberAdministration';
import { TeamWriter } from '../services/people/teams';
import { AccountLinkWriter } from '../services/people/accountLinks';
import { GitAppWriter } from '../services/git/apps/gitApps';
import { AppWriter } from '../services/apps/apps';
import type { ProviderCatalog } from '../services/apps/catalog';
import { GitActivityWriter } from '../services/git/writer';
import { TaskWriter } from '../services/work/taskWriter';
import { OperationsWriter } from '../services/operations/operationsWriter';
import { ConversationWriter } from '../services/activity/conversations';
import { DashboardViewWriter } from '../services/dashboards/dashboardViewWriter';
import { WebhookEndpointWriter } from '../services/webhooks/endpoints';
import { TelemetryWriter } from '../services/telemetry/writer';
import { checkEndpointUrl } from '../delivery/endpointUrl';
import { MetricSettings } from '../services/metrics/settings/metricSettings';
import { TeamRepositories } from '../services/metrics/settings/teamRepositories';
import { RepositoryProduction } from '../services/metrics/settings/repositoryProduction';
import { CostRates } from '../services/finance/costRates';

export interface Writers {
  changes: ChangeRunner;
  members: MemberWriter;
  /** Members changed by hand (the settings, `orgs add-members`), through `members`. */
  memberAdministration: MemberAdministration;
  teams: TeamWriter;
  accountLinks: AccountLinkWriter;
  gitApps: GitAppWriter;
  apps: AppWriter;
  gitActivity: GitActivityWriter;
  tasks: TaskWriter;
  operations: OperationsWriter;
  conversations: ConversationWriter;
  webhookEndpoints: WebhookEndpointWriter;
  telemetry: TelemetryWriter;
  dashboardViews: DashboardViewWriter;
  /** What counts in an organization's figures (docs/metrics.md#what-counts). */
  metricSettings: MetricSettings;
  /** The repositories a team owns, a setting of what counts (docs/metrics.md#what-a-team-covers). */
  teamRepositories: TeamRepositories;
  repositoryProduction: RepositoryProduction;
  /** The financial figures' cost inputs (`npm run costs`, the AI tools' seat prices on the settings page). */
  costRates: CostRates;
}

/** The domain services every writing surface calls (docs/architecture.md#writers), all through one change runner. */
export function createWriters(config: Config, changes: ChangeRunner, secrets: SecretBox, providers: ProviderCatalog, clock: () => Date): Writers {
  const members = new MemberWriter(changes);
  return {
    changes,
    members,
    memberAdministration: new MemberAdministration(changes, members),
    teams: new TeamWriter(changes),
    accountLinks: new AccountLinkWriter(changes),
    gitApps: new GitAppWriter(changes, secrets, providers),
    apps: new AppWriter(changes, secrets, providers),
    gitActivity: new GitActivityWriter(changes, providers),
    tasks: new TaskWriter(changes),
    operations: new OperationsWriter(changes),
    conversations: new ConversationWriter(changes),
    webhookEndpoints: new WebhookEndpointWriter(changes, secrets, checkEndpointUrl(config.WEBHOOK_ALLOW_PRIVATE)),
    telemetry: new TelemetryWriter(changes),
    dashboardViews: new DashboardViewWriter(changes, clock),
    metricSettings: new MetricSettings(changes, clock),
    teamRepositories: new TeamRepositories(changes, clock),
    repositoryProduction: new RepositoryProduction(changes, clock),
    costRates: new CostRates(changes, providers, clock),
  };
}
