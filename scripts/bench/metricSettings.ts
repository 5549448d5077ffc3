/**
 * Rows computed under other settings of what counts (issue 60, docs/metrics.md#what-counts): the settings are set
 * through `npm run metrics-settings -- set` before such rows, as an operator changes them, and put back as they were
 * after them, so the rows around them, and the database, count what they counted before.
 */

/** The settings a row runs under, and the words its name in the report gives them. */
export interface RowSettings {
  label: string;
  /** The arguments of `npm run metrics-settings -- set` after `--org`. */
  setArgs: string[];
}

/**
 * Not the defaults in every respect that costs a cold DORA computation: globs, so that production is matched with
 * LIKE rather than IN, and the incident filters of time to restore.
 */
export const NON_DEFAULT_SETTINGS: RowSettings = {
  label: 'production_environments production, prod-*, staging-?; incident_urgency high; incident_priorities P1, P2',
  setArgs: ['--production-environments', 'production,prod-*,staging-?', '--incident-urgency', 'high', '--incident-priorities', 'P1,P2'],
};

/** An organization's settings as `npm run metrics-settings -- show --json` prints them. */
export interface ShownSettings {
  production_environments: string[];
  incident_urgency: string;
  incident_priorities: string[];
  incident_services: string[];
}

/**
 * The `set` arguments that put `shown` back. The CLI takes comma-separated lists, so a name holding a comma could not
 * be put back whole: refused before anything is changed.
 */
export function restoringArgs(shown: ShownSettings): string[] {
  const lists = [...shown.production_environments, ...shown.incident_services];
  const comma = lists.find((entry) => entry.includes(','));
  if (comma !== undefined) throw new Error(`the organization's setting "${comma}" holds a comma, which npm run metrics-settings could not put back whole; not changing its settings`);
  const anyOr = (list: string[]) => (list.length ? list.join(',') : 'any');
  return [
    '--production-environments',
    shown.production_environments.join(','),
    '--incident-urgency',
    shown.incident_urgency,
    '--incident-priorities',
    anyOr(shown.incident_priorities),
    '--incident-services',
    anyOr(shown.incident_services),
  ];
}

/** The last JSON line a CLI printed (npm may print lines of its own before it). */
export function jsonLine<T>(out: string, cli: string): T {
  const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (!line) throw new Error(`${cli} printed no JSON:\n${out}`);
  return JSON.parse(line) as T;
}

/**
 * Sets `settings` for the organization and answers how to put back what it had; that undo runs once however often
 * it is called (after the rows, and again by the cleanup on an error or Ctrl-C).
 */
export async function applySettings(
  metricsSettings: (args: string[]) => Promise<string>,
  organizationId: string,
  settings: RowSettings,
  log: (s: string) => void,
): Promise<() => Promise<void>> {
  const before = jsonLine<ShownSettings & { version: number }>(await metricsSettings(['show', '--org', organizationId, '--json']), 'npm run metrics-settings');
  const restore = restoringArgs(before);
  const set = jsonLine<{ version: number }>(await metricsSettings(['set', '--org', organizationId, ...settings.setArgs, '--json']), 'npm run metrics-settings');
  log(`what counts in ${organizationId}: version ${before.version} → ${set.version} (${settings.label})`);
  let undone: Promise<void> | undefined;
  return () => {
    undone ??= (async () => {
      const back = jsonLine<{ version: number }>(await metricsSettings(['set', '--org', organizationId, ...restore, '--json']), 'npm run metrics-settings');
      log(`what counts in ${organizationId}: put back as it was before the rows (version ${back.version})`);
    })();
    return undone;
  };
}
