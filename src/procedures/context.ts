import type { Principal } from '../access/principal';
import type { ListingService } from '../persistence/query/listing';
import type { MetricsService } from '../services/metrics';
import type { WebhookEndpointWriter } from '../services/webhooks/endpoints';
import type { GitAppWriter } from '../services/git/apps/gitApps';
import type { AppWriter } from '../services/apps/apps';
import type { TeamWriter } from '../services/people/teams';
import type { AccountLinkWriter } from '../services/people/accountLinks';
import type { MemberAdministration } from '../services/people/memberAdministration';
import type { DashboardViewWriter } from '../services/dashboards/dashboardViewWriter';
import type { MetricSettings } from '../services/metrics/settings/metricSettings';
import type { TeamRepositories } from '../services/metrics/settings/teamRepositories';
import type { RepositoryProduction } from '../services/metrics/settings/repositoryProduction';
import type { CostRates } from '../services/finance/costRates';
import type { Session } from '../auth/sessions';

/** What the settings procedures change through (the same writers as the CLIs). */
export interface SettingsServices {
  webhookEndpoints: WebhookEndpointWriter;
  gitApps: GitAppWriter;
  apps: AppWriter;
  /** Members an admin adds, changes and removes by hand (docs/settings.md#members); through SCIM's member writer. */
  members: MemberAdministration;
  /** Teams an admin makes by hand (docs/settings.md#teams); the same writer as SCIM's Groups. */
  teams: TeamWriter;
  /** Members' accounts on apps and git apps, linked by an admin (docs/settings.md#setup); the same writer as the CLIs' link-user. */
  accountLinks: AccountLinkWriter;
  /** Dashboard views their owners make on the dashboards page (`dashboards.*`). */
  dashboardViews: DashboardViewWriter;
  /** What counts in the organization's figures (docs/metrics.md#what-counts). */
  metricSettings: MetricSettings;
  /** The repositories a team owns (docs/metrics.md#what-a-team-covers). */
  teamRepositories: TeamRepositories;
  repositoryProduction: RepositoryProduction;
  /** The AI tools' seat prices, set by admins with the rest of what counts (the same service as `npm run costs`). */
  costRates: CostRates;
  /** Where clients reach this service: git apps' and apps' webhook URLs and Claude Code's OTLP endpoint are built from it. */
  publicBase: string;
  /** The service's "now" (runtime.clock): what the setup view measures a source's silence against. */
  clock: () => Date;
}

/** A /trpc request whose calls are all `settings.*`: made by a signed-in browser, never with an API token. */
export interface SettingsRequest {
  session: Session;
  principal: Principal;
  /** Why a mutation must not run (a foreign Origin, no CSRF token); queries may. */
  mutationRefusal?: string;
}

/** Per-request context shared by the REST façade and /trpc; built by the request gate. */
export interface RequestContext {
  principal?: Principal;
  /** Set instead of `principal` for `settings.*` calls. */
  settings?: SettingsRequest;
  /** A 401/429 (or a failure to authenticate at all) from the gate, raised by the base procedure so each transport renders it. */
  gateError?: unknown;
  /** Mistakes in the raw query string that the parsed input cannot show (REST only): empty or repeated parameters. */
  queryProblems: string[];
  services: { listing: ListingService; metrics: MetricsService; settings: SettingsServices };
}

export type AuthedContext = RequestContext & { principal: Principal };

export type SettingsContext = RequestContext & { settings: SettingsRequest };
