import { z } from 'zod';
import { DEFAULT_INCIDENT_SETTINGS, incidentSettingsShape } from './incidents';
import { DEFAULT_DRAFT_SETTINGS, draftSettingsShape } from './drafts';
import { botSettingsShape, DEFAULT_BOTS } from './bots';
import { changeFailureSettingsShape, DEFAULT_CHANGE_FAILURE_SETTINGS } from './changeFailure';

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts), as its admins set it. Every setting has
 * a default that is DORA's (or the product's behaviour before settings existed), so an organization that never
 * changed anything has version 0 and these.
 */

/** A name or a glob: `*` any run of characters, `?` one; compared without regard to case. */
const environmentEntry = z
  .string({ error: 'each production environment must be a name or a glob' })
  .trim()
  .min(1, { error: 'a production environment must not be empty' })
  .max(100, { error: 'a production environment must be at most 100 characters' })
  .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'a production environment must not hold control characters' })
  .transform((v) => v.toLowerCase());

export const MAX_PRODUCTION_ENVIRONMENTS = 50;

/** A list of production environments, the organization's or one repository's own. */
export const productionEnvironments = z
  .array(environmentEntry, { error: 'production_environments must be a list of names or globs' })
  .min(1, { error: 'production_environments must name at least one environment: with none, no deployment would count' })
  .max(MAX_PRODUCTION_ENVIRONMENTS, { error: `production_environments takes at most ${MAX_PRODUCTION_ENVIRONMENTS} names or globs` })
  .transform((list) => [...new Set(list)]);

/** The entries in the order of their keys: a document compares (and is audited) the same whatever order it was made in. */
export const byKey = <T>(record: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Well under SQLite's 32,766 variables with every list at its longest; more repositories than a company deploys apart. */
export const MAX_REPOSITORY_OVERRIDES = 200;

export const metricSettingsShape = {
  production_environments: productionEnvironments.meta({
      description:
        "The deployment environments that count as production in DORA's figures and AI impact's failure rate: names, or globs with `*` (any run) and `?` (one character), without regard to case. Default: `[\"production\"]`. Example: `[\"production\", \"prod-*\", \"live\"]`.",
    }),
  ...incidentSettingsShape,
  ...draftSettingsShape,
  ...botSettingsShape,
  ...changeFailureSettingsShape,
};

/**
 * Repositories that deploy to production under names of their own (`live`, `prod-eu`), each with its own list in
 * place of the organization's, keyed by repository id: DevLake's production pattern per scope, GitLab's deployment
 * tier per project. Set one repository at a time (repositoryProduction.ts), not with the other settings.
 */
export const repositoryProductionShape = {
  repository_production_environments: z.record(z.string(), productionEnvironments).transform((byRepository) => byKey(byRepository)),
};

export const MetricSettingsDocument = z.object({ ...metricSettingsShape, ...repositoryProductionShape });
export type MetricSettingsDocument = z.infer<typeof MetricSettingsDocument>;

export const DEFAULT_METRIC_SETTINGS: MetricSettingsDocument = {
  production_environments: ['production'],
  repository_production_environments: {},
  ...DEFAULT_INCIDENT_SETTINGS,
  ...DEFAULT_DRAFT_SETTINGS,
  ...DEFAULT_BOTS,
  ...DEFAULT_CHANGE_FAILURE_SETTINGS,
};

/** An organization's settings as the figures use them: the version they carry, and the settings. */
export interface AppliedMetricSettings {
  version: number;
  settings: MetricSettingsDocument;
  /** Which bit of the rows' `bot` the figures read (db/rollups/botAccounts.ts). */
  botsGeneration: number;
}

export const DEFAULT_APPLIED: AppliedMetricSettings = { version: 0, settings: DEFAULT_METRIC_SETTINGS, botsGeneration: 0 };

/**
 * A stored document read back: what an older version of the product wrote lacks the settings added since, which
 * take their defaults; anything unreadable is the defaults (the row is ours, so this is a defect, not input).
 */
export function parseStoredDocument(text: string): MetricSettingsDocument {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return DEFAULT_METRIC_SETTINGS;
  }
  const parsed = MetricSettingsDocument.partial().safeParse(stored);
  return { ...DEFAULT_METRIC_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}

const isGlob = (entry: string) => /[*?]/.test(entry);

/**
 * Production environments as a condition on a column, with its named replacements: exact names in one IN list,
 * each glob a LIKE with `!` as its escape (the same in MySQL/MariaDB and SQLite, where a backslash is not). The
 * column is compared lowercased, as the settings are stored.
 */
export function environmentCondition(entries: readonly string[], column: string, prefix = 'production'): { sql: string; replacements: Record<string, string | string[]> } {
  const names = entries.filter((e) => !isGlob(e));
  const globs = entries.filter(isGlob);
  const replacements: Record<string, string | string[]> = {};
  const parts: string[] = [];
  if (names.length) {
    replacements[`${prefix}_names`] = names;
    parts.push(`LOWER(${column}) IN (:${prefix}_names)`);
  }
  globs.forEach((glob, i) => {
    replacements[`${prefix}_glob_${i}`] = likePattern(glob);
    parts.push(`LOWER(${column}) LIKE :${prefix}_glob_${i} ESCAPE '!'`);
  });
  return { sql: parts.length ? `(${parts.join(' OR ')})` : '1 = 0', replacements };
}

/**
 * Which deployments (or shipped changes, or their daily counts) of a repository are production's: those of a
 * repository with its own list by that list, every other (and those of no repository) by the organization's. Without
 * overrides this is environmentCondition itself; with them one CASE on the repository column, so the row's index is
 * read as before and only the filter grows.
 */
export function productionCondition(settings: MetricSettingsDocument, environmentColumn: string, repositoryColumn: string): { sql: string; replacements: Record<string, string | string[]> } {
  const organization = environmentCondition(settings.production_environments, environmentColumn);
  const overrides = Object.entries(settings.repository_production_environments);
  if (!overrides.length) return organization;
  const replacements = { ...organization.replacements };
  const cases = overrides.map(([repositoryId, entries], i) => {
    const own = environmentCondition(entries, environmentColumn, `production_r${i}`);
    Object.assign(replacements, own.replacements, { [`production_r${i}_repository`]: repositoryId });
    return `WHEN :production_r${i}_repository THEN ${own.sql}`;
  });
  return { sql: `(CASE ${repositoryColumn} ${cases.join(' ')} ELSE ${organization.sql} END)`, replacements };
}

/** A glob as a LIKE pattern: its own `%`, `_` and `!` escaped, then `*` and `?` as LIKE's wildcards. */
export const likePattern = (glob: string) => glob.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%').replace(/\?/g, '_');

/** The same test in the process (what the writers and the tests ask of one environment). */
export function matchesEnvironment(entries: readonly string[], environment: string): boolean {
  const value = environment.toLowerCase();
  return entries.some((entry) => (isGlob(entry) ? globRegExp(entry).test(value) : entry === value));
}

const globRegExp = (glob: string) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
