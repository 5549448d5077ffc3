/**
 * npm run metrics-settings -- show --org <id> [--json]
 * npm run metrics-settings -- team-repos --org <id> --team <id> [--repos <ids or full names, comma-separated> | --fallback] [--json]
 * npm run metrics-settings -- repo-production --org <id> --repo <id or full name> (--production-environments <list> | --organization-default) [--json]
 * npm run metrics-settings -- set --org <id> [--production-environments <names or globs, comma-separated>] [--drafts-from-ready true|false]
 *   [--incident-urgency high|any] [--incident-priorities <P1..P5, comma-separated>|any] [--incident-services <names or ids>|any]
 *   [--failed-deployment-fails true|false] [--incident-fails true|false] [--revert-within-hours <1..720>|none] [--hotfix-patterns <globs>|none]
 *   [--bots <logins or globs>|none] [--bot-default-list true|false] [--wait] [--json]
 *
 * What counts in an organization's figures (docs/metrics.md#what-counts): the same service and audit log as the
 * settings page's, the operator as the actor. Exit codes: 0 done, 1 refused (unknown organization, a setting the
 * service refuses) or failure, 2 usage error.
 */
import { MetricSetting } from '../db/models';
import { ChangeRunner } from '../src/persistence/changes/change';
import { OPERATOR } from '../src/persistence/changes/auditRecord';
import { MetricSettings, MetricSettingsView } from '../src/services/metrics/settings/metricSettings';
import { Recomputations } from '../src/services/metrics/settings/recomputation';
import { RepositoryProduction } from '../src/services/metrics/settings/repositoryProduction';
import { RepositoryName, TeamRepositories, TeamRepositoriesView } from '../src/services/metrics/settings/teamRepositories';
import type { MetricSettingsDocument } from '../src/services/metrics/settings/document';
import { INCIDENT_URGENCY_SETTINGS } from '../src/services/metrics/settings/incidents';
import type { ChangeFailureSetting } from '../src/services/metrics/settings/changeFailure';
import { INCIDENT_PRIORITIES } from '../db/vocabulary';
import { nonEmpty, parse, runCli, runWriterCommand, UsageError } from './cli';

const USAGE = `Usage:
  npm run metrics-settings -- show --org <id> [--json]
  npm run metrics-settings -- team-repos --org <id> --team <id> [--repos <list> | --fallback] [--json]
  npm run metrics-settings -- repo-production --org <id> --repo <id or owner/name>
                                (--production-environments <list> | --organization-default) [--json]
  npm run metrics-settings -- set --org <id> [--production-environments <list>] [--incident-urgency high|any]
                                [--drafts-from-ready true|false]
                                [--incident-priorities <list>|any] [--incident-services <list>|any]
                                [--failed-deployment-fails true|false] [--incident-fails true|false]
                                [--revert-within-hours <hours>|none] [--hotfix-patterns <list>|none]
                                [--bots <list>|none] [--bot-default-list true|false] [--wait] [--json]

show   prints the organization's settings of what counts, their version (0: never changed) and the defaults.
set    changes the settings named, each replaced whole; the others keep their value. A change that changes
       something makes a new version, audited as metric_settings.updated; every metric answer says the
       version it was computed under (meta.settings_version). It applies to the whole history at once.
         --production-environments L   the deployment environments that count as production, comma-separated
                                       names or globs (* any run, ? one character), without regard to case;
                                       default: production. Example: production,prod-*,live
         --incident-urgency U          which PagerDuty urgencies count in time to restore: high (low-urgency
                                       incidents left out) or any; default: any
         --incident-priorities L       the priorities that count in time to restore, comma-separated, of
                                       P1 to P5; any for every one (the default). Example: P1,P2
         --incident-services L         the PagerDuty services and Opsgenie teams whose incidents count in time to
                                       restore, comma-separated names or ids; any for every one (the default)
         --drafts-from-ready B         true: a pull request opened as a draft has its time to merge, pickup and
                                       approval from the last time it became ready for review; false (the
                                       default): from its opening
       An incident without an urgency, priority or service (GitHub's, GitLab's, a script's) always counts.
       What a change failure is (change_failure; each flag changes its part, the others keep theirs):
         --failed-deployment-fails B   a deployment whose job failed is one: true (the default) or false
         --incident-fails B            one an incident names as the cause is one: true (the default) or false
         --revert-within-hours N       one reverted or rolled back within N hours (1 to 720) by a later deployment
                                       to its environment is one; none: not read. Default: 24
         --hotfix-patterns L           one followed within those hours by a deployment shipping a commit or
                                       merging a pull request whose message or title matches one of these
                                       comma-separated globs is one; none (the default): not read. Example: hotfix*
       Bots (their pull requests, the reviews on them and the reviews they give are left out of the pull-request
       and collaboration figures). A change of these is recomputed over the history in the background before it
       applies; until then every answer is computed under the version in force, and says so:
         --bots L                      the organization's own bot accounts, comma-separated logins or globs;
                                       none (the default) for no own ones. Example: release-bot,svc-*
         --bot-default-list B          whether the maintained list applies too (*[bot], dependabot, renovate,
                                       renovate-bot, GitLab's project_*_bot* and group_*_bot*): true (the default)
         --wait                        recompute here, to the end, printing the progress, instead of leaving it
                                       to the running service
team-repos  shows the repositories a team owns, and those its members authored commits in, which it covers
       while it owns none (docs/metrics.md#what-a-team-covers); with --repos or --fallback it sets them, a new
       version of the settings as set makes, audited as metric_settings.updated.
         --repos L                     the repositories the team owns, comma-separated ids or full names
                                       (owner/name): its git figures cover exactly those
         --fallback                    it owns none again, and covers those its members authored commits in
repo-production  gives one repository production environments of its own, in place of the organization's, for
       a repository that deploys to production under names of its own (docs/metrics.md#a-repositorys-own-production-
       environments); a new version of the settings as set makes, audited as metric_settings.updated.
         --production-environments L   its own list, comma-separated names or globs, e.g. live,prod-eu-*
         --organization-default        it takes the organization's list again
--json prints the settings as JSON.

Target database: DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'show'; org: string; json: boolean }
  /** `changeFailure`: the parts of `change_failure` to change, set over those in force. */
  | { kind: 'set'; org: string; settings: Partial<MetricSettingsDocument>; changeFailure?: Partial<ChangeFailureSetting>; wait?: boolean; json: boolean }
  /** `repositories` undefined: show them; null: back to the fallback. */
  | { kind: 'team-repos'; org: string; team: string; repositories?: string[] | null; json: boolean }
  /** `environments` null: back to the organization's list. */
  | { kind: 'repo-production'; org: string; repository: string; environments: string[] | null; json: boolean };

function orgOf(command: string, org: string | undefined): string {
  const id = nonEmpty('--org', org);
  if (!id) throw new UsageError(`${command} needs --org <organization id>`);
  return id;
}

/** A comma-separated list; the service checks each entry. */
const listOf = (raw: string) => raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');

const SET_FLAGS =
  '--production-environments <list>, --incident-urgency high|any, --incident-priorities <list>|any, --incident-services <list>|any, --drafts-from-ready true|false, --failed-deployment-fails true|false, --incident-fails true|false, --revert-within-hours <hours>|none, --hotfix-patterns <list>|none, --bots <list>|none or --bot-default-list true|false';

function booleanOf(flag: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') throw new UsageError(`${flag} takes true or false, not "${raw}"`);
  return value === 'true';
}

/** The parts of `change_failure` given; the service checks the hours' range, so its message is the API's. */
function changeFailureOf(values: Record<string, string | boolean | undefined>): Partial<ChangeFailureSetting> | undefined {
  const part: Partial<ChangeFailureSetting> = {};
  const [job, incident, hours, patterns] = ['failed-deployment-fails', 'incident-fails', 'revert-within-hours', 'hotfix-patterns'].map((f) => values[f]);
  if (typeof job === 'string') part.failed_deployment = booleanOf('--failed-deployment-fails', job);
  if (typeof incident === 'string') part.incident = booleanOf('--incident-fails', incident);
  if (typeof hours === 'string') {
    if (hours.trim().toLowerCase() === 'none') part.revert_within_hours = null;
    else if (/^\s*\d+\s*$/.test(hours)) part.revert_within_hours = Number(hours);
    else throw new UsageError(`--revert-within-hours takes a whole number of hours (1 to 720) or none, not "${hours}"`);
  }
  if (typeof patterns === 'string') {
    if (patterns.trim().toLowerCase() === 'none') part.hotfix_patterns = [];
    else {
      part.hotfix_patterns = listOf(patterns);
      if (!part.hotfix_patterns.length) throw new UsageError('--hotfix-patterns needs globs, e.g. hotfix*,*[hotfix]*, or none');
    }
  }
  return Object.keys(part).length ? part : undefined;
}

function incidentUrgencyOf(raw: string): MetricSettingsDocument['incident_urgency'] {
  const urgency = INCIDENT_URGENCY_SETTINGS.find((u) => u === raw.trim().toLowerCase());
  if (!urgency) throw new UsageError(`--incident-urgency takes high or any, not "${raw}"`);
  return urgency;
}

/** `any` (every value: the empty list), or a comma-separated list of at least one entry. */
function anyOrListOf(flag: string, raw: string, what: string): string[] {
  if (raw.trim().toLowerCase() === 'any') return [];
  const list = listOf(raw);
  if (!list.length) throw new UsageError(`${flag} needs ${what}, or any`);
  return list;
}

function incidentPrioritiesOf(raw: string): MetricSettingsDocument['incident_priorities'] {
  const list = anyOrListOf('--incident-priorities', raw, 'priorities of P1 to P5, e.g. P1,P2');
  return list.map((entry) => {
    const priority = INCIDENT_PRIORITIES.find((p) => p === entry.toUpperCase());
    if (!priority) throw new UsageError(`--incident-priorities takes P1 to P5 (or any), not "${entry}"`);
    return priority;
  });
}

/** true or false; anything else is a usage error naming the flag. */
function draftsFromReadyOf(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') throw new UsageError(`--drafts-from-ready takes true or false, not "${raw}"`);
  return value === 'true';
}

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: show, set, team-repos or repo-production');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'show': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      return { kind: 'show', org: orgOf('show', values.org), json: values.json ?? false };
    }
    case 'set': {
      const { values } = parse(rest, {
        org: { type: 'string' },
        'production-environments': { type: 'string' },
        'incident-urgency': { type: 'string' },
        'incident-priorities': { type: 'string' },
        'incident-services': { type: 'string' },
        'drafts-from-ready': { type: 'string' },
        'failed-deployment-fails': { type: 'string' },
        'incident-fails': { type: 'string' },
        'revert-within-hours': { type: 'string' },
        'hotfix-patterns': { type: 'string' },
        bots: { type: 'string' },
        'bot-default-list': { type: 'string' },
        wait: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      const org = orgOf('set', values.org);
      const settings: Partial<MetricSettingsDocument> = {};
      const environments = values['production-environments'];
      if (environments !== undefined) {
        settings.production_environments = listOf(environments);
        if (!settings.production_environments.length) throw new UsageError('--production-environments needs at least one name or glob, e.g. production,prod-*');
      }
      const urgency = values['incident-urgency'];
      if (urgency !== undefined) settings.incident_urgency = incidentUrgencyOf(urgency);
      const priorities = values['incident-priorities'];
      if (priorities !== undefined) settings.incident_priorities = incidentPrioritiesOf(priorities);
      const services = values['incident-services'];
      if (services !== undefined) settings.incident_services = anyOrListOf('--incident-services', services, 'names or ids of PagerDuty services or Opsgenie teams, e.g. checkout,PNE3JZM');
      const drafts = values['drafts-from-ready'];
      if (drafts !== undefined) settings.drafts_from_ready = draftsFromReadyOf(drafts);
      if (values.bots !== undefined) settings.bot_accounts = values.bots.trim().toLowerCase() === 'none' ? [] : listOf(values.bots);
      const defaultList = values['bot-default-list'];
      if (defaultList !== undefined) settings.bot_default_list = booleanOf('--bot-default-list', defaultList);
      const changeFailure = changeFailureOf(values);
      if (!Object.keys(settings).length && !changeFailure) throw new UsageError(`set needs a setting to change: ${SET_FLAGS}`);
      return { kind: 'set', org, settings, changeFailure, wait: values.wait, json: values.json ?? false };
    }
    case 'team-repos': {
      const { values } = parse(rest, { org: { type: 'string' }, team: { type: 'string' }, repos: { type: 'string' }, fallback: { type: 'boolean' }, json: { type: 'boolean' } });
      const org = orgOf('team-repos', values.org);
      const team = nonEmpty('--team', values.team);
      if (!team) throw new UsageError('team-repos needs --team <team id>');
      if (values.repos !== undefined && values.fallback) throw new UsageError('team-repos takes --repos <list> or --fallback, not both');
      const json = values.json ?? false;
      if (values.fallback) return { kind: 'team-repos', org, team, repositories: null, json };
      if (values.repos === undefined) return { kind: 'team-repos', org, team, json };
      const repositories = listOf(values.repos);
      if (!repositories.length) throw new UsageError('--repos needs at least one repository id or full name, e.g. acme/api,acme/web; --fallback for none');
      return { kind: 'team-repos', org, team, repositories, json };
    }
    case 'repo-production': {
      const { values } = parse(rest, { org: { type: 'string' }, repo: { type: 'string' }, 'production-environments': { type: 'string' }, 'organization-default': { type: 'boolean' }, json: { type: 'boolean' } });
      const org = orgOf('repo-production', values.org);
      const repository = nonEmpty('--repo', values.repo);
      if (!repository) throw new UsageError('repo-production needs --repo <repository id or full name>');
      const listed = values['production-environments'];
      if ((listed === undefined) === !values['organization-default']) throw new UsageError('repo-production takes --production-environments <list> or --organization-default, one of them');
      const environments = listed === undefined ? null : listOf(listed);
      if (environments && !environments.length) throw new UsageError('--production-environments needs at least one name or glob, e.g. live,prod-*');
      return { kind: 'repo-production', org, repository, environments, json: values.json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use show, set, team-repos or repo-production`);
  }
}

const jsonOf = (view: MetricSettingsView) => ({
  ...view,
  updated_at: view.updated_at?.toISOString() ?? null,
  recomputation: view.recomputation && { ...view.recomputation, started_at: view.recomputation.started_at.toISOString() },
});

/** A filter's list, or `any` for the empty one that filters nothing. */
const anyOr = (list: readonly string[]) => (list.length ? list.join(', ') : 'any');

function describe(view: MetricSettingsView): string {
  const since = view.updated_at ? `, changed ${view.updated_at.toISOString()}` : ' (the defaults: never changed)';
  return [
    `What counts in organization ${view.organization_id}: version ${view.version}${since}`,
    `  production environments: ${view.production_environments.join(', ')}   (default: ${view.defaults.production_environments.join(', ')})`,
    `  incident urgency: ${view.incident_urgency}   (default: ${view.defaults.incident_urgency})`,
    `  incident priorities: ${anyOr(view.incident_priorities)}   (default: ${anyOr(view.defaults.incident_priorities)})`,
    `  incident services: ${anyOr(view.incident_services)}   (default: ${anyOr(view.defaults.incident_services)})`,
    `  drafts measured from ready for review: ${view.drafts_from_ready}   (default: ${view.defaults.drafts_from_ready})`,
    `  change failure: ${changeFailureText(view.change_failure)}   (default: ${changeFailureText(view.defaults.change_failure)})`,
    ...Object.entries(view.repository_production_environments).map(([repositoryId, own]) => `  production environments of repository ${repositoryId}: ${own.join(', ')}   (its own)`),
    `  bot accounts: ${view.bot_accounts.length ? view.bot_accounts.join(', ') : 'none of its own'}${view.bot_default_list ? ', and the maintained list' : ''}   (default: the maintained list)`,
    ...(view.recomputation
      ? [`  recomputing version ${view.recomputation.version} since ${view.recomputation.started_at.toISOString()}: ${view.recomputation.done} of ${view.recomputation.total} pull requests; the figures are version ${view.version}'s until it is done`]
      : []),
  ].join('\n');
}

/** Its causes in words, as the docs name them. */
function changeFailureText(setting: ChangeFailureSetting): string {
  const within = setting.revert_within_hours;
  const causes = [
    ...(setting.failed_deployment ? ['a failed job'] : []),
    ...(setting.incident ? ['an incident naming its commit'] : []),
    ...(within !== null ? [`a revert or rollback within ${within} h`] : []),
    ...(within !== null && setting.hotfix_patterns.length ? [`a hotfix within ${within} h (${setting.hotfix_patterns.join(', ')})`] : []),
  ];
  return causes.length ? causes.join(', ') : 'nothing (no deployment fails)';
}

function describeTeam(view: TeamRepositoriesView): string {
  const names = (list: RepositoryName[]) => (list.length ? list.map((r) => r.full_name).join(', ') : 'none');
  return [
    `Repositories of team ${view.team_id} in organization ${view.organization_id} (settings version ${view.version})`,
    view.owned ? `  owns: ${names(view.owned)}   (its figures cover these)` : '  owns: none   (its figures cover the repositories its members authored commits in)',
    `  its members authored commits in: ${names(view.authored)}`,
  ].join('\n');
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, _config: unknown, out: (s: string) => void): Promise<void> {
  const changes = ChangeRunner.for(MetricSetting.sequelize!);
  if (cmd.kind === 'team-repos') {
    const teams = new TeamRepositories(changes);
    const team = cmd.repositories === undefined ? await teams.get(cmd.org, cmd.team) : await teams.set(cmd.org, cmd.team, cmd.repositories, OPERATOR);
    out(cmd.json ? `${JSON.stringify(team)}\n` : `${describeTeam(team)}\n`);
    return;
  }
  if (cmd.kind === 'repo-production') {
    const view = await new RepositoryProduction(changes).set(cmd.org, { repository: cmd.repository, production_environments: cmd.environments }, OPERATOR);
    out(cmd.json ? `${JSON.stringify(jsonOf(view))}\n` : `${describe(view)}\n`);
    return;
  }
  const settings = new MetricSettings(changes);
  let view = cmd.kind === 'show' ? await settings.get(cmd.org) : await settings.update(cmd.org, await withChangeFailure(settings, cmd), OPERATOR);
  if (cmd.kind === 'set' && cmd.wait && view.recomputation) {
    const recomputations = new Recomputations(changes);
    let chunks = 0;
    while (await recomputations.step(cmd.org)) {
      // A line every 20 chunks (10,000 pull requests) on stderr: the operator sees it move; --json stays one line.
      if (++chunks % 20 === 0) process.stderr.write(`recomputing: ${(await settings.get(cmd.org)).recomputation?.done ?? 0} pull requests done\n`);
    }
    view = await settings.get(cmd.org);
  }
  out(cmd.json ? `${JSON.stringify(jsonOf(view))}\n` : `${describe(view)}\n`);
}

/** The parts of `change_failure` given, over those in force: the service takes it whole. */
async function withChangeFailure(settings: MetricSettings, cmd: Extract<Command, { kind: 'set' }>): Promise<Partial<MetricSettingsDocument>> {
  if (!cmd.changeFailure) return cmd.settings;
  const { change_failure: inForce } = await settings.get(cmd.org);
  return { ...cmd.settings, change_failure: { ...inForce, ...cmd.changeFailure } };
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('metrics-settings', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('metrics-settings', main);
