/**
 * npm run metrics-settings -- show --org <id> [--json]
 * npm run metrics-settings -- set --org <id> --production-environments <names or globs, comma-separated> [--json]
 *
 * What counts in an organization's figures (docs/metrics.md#what-counts): the same service and audit log as the
 * settings page's, the operator as the actor. Exit codes: 0 done, 1 refused (unknown organization, a setting the
 * service refuses) or failure, 2 usage error.
 */
import { MetricSetting } from '../db/models';
import { ChangeRunner } from '../src/persistence/changes/change';
import { OPERATOR } from '../src/persistence/changes/auditRecord';
import { MetricSettings, MetricSettingsView } from '../src/services/metrics/settings/metricSettings';
import type { MetricSettingsDocument } from '../src/services/metrics/settings/document';
import { nonEmpty, parse, runCli, runWriterCommand, UsageError } from './cli';

const USAGE = `Usage:
  npm run metrics-settings -- show --org <id> [--json]
  npm run metrics-settings -- set --org <id> --production-environments <list> [--json]

show   prints the organization's settings of what counts, their version (0: never changed) and the defaults.
set    changes the settings named, each replaced whole; the others keep their value. A change that changes
       something makes a new version, audited as metric_settings.updated; every metric answer says the
       version it was computed under (meta.settings_version). It applies to the whole history at once.
         --production-environments L   the deployment environments that count as production, comma-separated
                                       names or globs (* any run, ? one character), without regard to case;
                                       default: production. Example: production,prod-*,live
--json prints the settings as JSON.

Target database: DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'show'; org: string; json: boolean }
  | { kind: 'set'; org: string; settings: Partial<MetricSettingsDocument>; json: boolean };

function orgOf(command: string, org: string | undefined): string {
  const id = nonEmpty('--org', org);
  if (!id) throw new UsageError(`${command} needs --org <organization id>`);
  return id;
}

/** A comma-separated list; the service checks each entry. */
const listOf = (raw: string) => raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: show or set');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'show': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      return { kind: 'show', org: orgOf('show', values.org), json: values.json ?? false };
    }
    case 'set': {
      const { values } = parse(rest, { org: { type: 'string' }, 'production-environments': { type: 'string' }, json: { type: 'boolean' } });
      const org = orgOf('set', values.org);
      const environments = values['production-environments'];
      if (environments === undefined) throw new UsageError('set needs a setting to change: --production-environments <list>');
      const list = listOf(environments);
      if (!list.length) throw new UsageError('--production-environments needs at least one name or glob, e.g. production,prod-*');
      return { kind: 'set', org, settings: { production_environments: list }, json: values.json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use show or set`);
  }
}

const jsonOf = (view: MetricSettingsView) => ({ ...view, updated_at: view.updated_at?.toISOString() ?? null });

function describe(view: MetricSettingsView): string {
  const since = view.updated_at ? `, changed ${view.updated_at.toISOString()}` : ' (the defaults: never changed)';
  return [
    `What counts in organization ${view.organization_id}: version ${view.version}${since}`,
    `  production environments: ${view.production_environments.join(', ')}   (default: ${view.defaults.production_environments.join(', ')})`,
  ].join('\n');
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, _config: unknown, out: (s: string) => void): Promise<void> {
  const settings = new MetricSettings(ChangeRunner.for(MetricSetting.sequelize!));
  const view = cmd.kind === 'show' ? await settings.get(cmd.org) : await settings.update(cmd.org, cmd.settings, OPERATOR);
  out(cmd.json ? `${JSON.stringify(jsonOf(view))}\n` : `${describe(view)}\n`);
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('metrics-settings', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('metrics-settings', main);
