import type { Transaction } from 'sequelize';
import { z } from 'zod';
import { MetricSetting, Organization } from '../../../../db/models';
import type { Change, ChangeRunner } from '../../../persistence/changes/change';
import type { Actor } from '../../../persistence/changes/auditRecord';
import { invalid, notFound } from '../../../errors';
import { AppliedMetricSettings, DEFAULT_APPLIED, DEFAULT_METRIC_SETTINGS, MetricSettingsDocument, metricSettingsShape, parseStoredDocument } from './document';
import { sameBots } from './bots';
import { dropRecomputation, recomputationOf, RecomputationView, startRecomputation } from './recomputation';

/** What an admin sends: any of the settings, each replacing its current value whole. */
export const MetricSettingsChange = z.strictObject(metricSettingsShape).partial();
export type MetricSettingsChange = z.infer<typeof MetricSettingsChange>;

/** An organization's settings as the settings page, tRPC `settings.metrics.get` and the CLI show them. */
export interface MetricSettingsView extends MetricSettingsDocument {
  organization_id: string;
  /** 0 while the organization has never changed them; every metric answer names the version it was computed under. */
  version: number;
  updated_at: Date | null;
  /** What each setting is when never changed. */
  defaults: MetricSettingsDocument;
  /**
   * A change of the bot accounts being recomputed over the history (recomputation.ts), with the settings it will
   * apply: until it is done the figures are those of `version`, and say so.
   */
  recomputation: (RecomputationView & { settings: MetricSettingsDocument }) | null;
}

const viewOf = (organizationId: string, applied: AppliedMetricSettings, updatedAt: Date | null, pending: Pending | null): MetricSettingsView => ({
  organization_id: organizationId,
  version: applied.version,
  updated_at: updatedAt,
  ...applied.settings,
  defaults: DEFAULT_METRIC_SETTINGS,
  recomputation: pending && { ...pending.progress, settings: pending.settings },
});

type Pending = { progress: RecomputationView; settings: MetricSettingsDocument };

const pendingOf = (organizationId: string, transaction?: Transaction): Promise<Pending | null> => recomputationOf(organizationId, transaction);

/** The view of the settings a change left, read in its transaction. */
export async function settingsViewAfter(change: Change, organizationId: string, after: { applied: AppliedMetricSettings; updatedAt: Date | null }): Promise<MetricSettingsView> {
  return viewOf(organizationId, after.applied, after.updatedAt, await pendingOf(organizationId, change.transaction));
}

const appliedOf = (row: MetricSetting | null): AppliedMetricSettings =>
  row ? { version: row.version, settings: parseStoredDocument(row.document), botsGeneration: row.bots_generation } : DEFAULT_APPLIED;

/** The organization's settings in force: one read by primary key, the defaults (version 0) without a row. */
export async function appliedMetricSettings(organizationId: string): Promise<AppliedMetricSettings> {
  return appliedOf(await MetricSetting.findByPk(organizationId));
}

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts), changed by its admins (settings page, tRPC
 * `settings.metrics.update`) or an operator (`npm run metrics-settings`). Each change that changes something is one
 * change (change.ts): a new version, its audit entry with each setting before and after, and the data version the
 * figures' cache is keyed by, so the next answer is computed under it. The settings are filters the figures apply
 * as they read, so a new version holds for the whole history at once: no answer mixes two versions.
 */
export class MetricSettings {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(organizationId: string): Promise<MetricSettingsView> {
    if (!(await Organization.findByPk(organizationId, { attributes: ['id'] }))) throw notFound(`No organization ${organizationId}`);
    const row = await MetricSetting.findByPk(organizationId);
    return viewOf(organizationId, appliedOf(row), row?.updated_at ?? null, await pendingOf(organizationId));
  }

  /** Async so that a refused input, checked before any transaction opens, rejects like the rest. */
  async update(organizationId: string, input: unknown, actor: Actor): Promise<MetricSettingsView> {
    const parsed = MetricSettingsChange.safeParse(input);
    if (!parsed.success) throw invalid(parsed.error.issues.map(describeIssue).join('; '));
    const requested = parsed.data;
    if (Object.keys(requested).length === 0) throw invalid(`Name at least one setting to change: ${SETTINGS}`);
    return this.changes.run(async (change) => {
      const after = await newSettingsVersion(change, organizationId, actor, this.now(), (before) => {
        const settings: MetricSettingsDocument = { ...before.settings, ...requested };
        const changed = changedSettings(before.settings, settings);
        return Object.keys(changed).length ? { settings, details: { changed } } : null;
      });
      return settingsViewAfter(change, organizationId, after);
    });
  }
}

/** What a change of the settings changes: the settings after it, and what its audit entry says besides the version. */
export interface SettingsEdit {
  settings: MetricSettingsDocument;
  details: Record<string, unknown>;
}

/**
 * A change of what counts, within `change`: the organization locked (two admins' changes get two versions, one after
 * the other), `edit` is given the settings in force and makes its own writes; unless it answers null (nothing
 * changed: no version, no entry), the settings it answers are the next version, audited as `metric_settings.updated`
 * with its details, and the data version the figures' cache is keyed by is raised. Every change of what counts goes
 * through here (MetricSettings, TeamRepositories), so every one is a version the answers name.
 */
export async function newSettingsVersion(
  change: Change,
  organizationId: string,
  actor: Actor,
  at: Date,
  edit: (before: AppliedMetricSettings) => SettingsEdit | null | Promise<SettingsEdit | null>,
): Promise<{ applied: AppliedMetricSettings; updatedAt: Date | null }> {
  const { transaction } = change;
  if (!(await Organization.findByPk(organizationId, { attributes: ['id'], transaction, lock: transaction.LOCK.UPDATE }))) throw notFound(`No organization ${organizationId}`);
  const row = await MetricSetting.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE });
  const inForce = appliedOf(row);
  const pending = await pendingOf(organizationId, transaction);
  // A change made while another is recomputed builds on that one: the admin sees what they saved.
  const latest = pending ? { ...inForce, version: pending.progress.version, settings: pending.settings } : inForce;
  const edited = await edit(latest);
  if (!edited) return { applied: inForce, updatedAt: row?.updated_at ?? null };
  const version = latest.version + 1;
  const recompute = !sameBots(inForce.settings, edited.settings);
  if (recompute) {
    // Another change of the bots is recomputed from the start; one that keeps the pending bots goes on where it is.
    if (pending && sameBots(pending.settings, edited.settings)) await startRecomputation(change, organizationId, version, edited.settings, at, true);
    else await startRecomputation(change, organizationId, version, edited.settings, at);
  } else {
    await dropRecomputation(change, organizationId);
    const fields = { version, document: JSON.stringify(edited.settings), updated_at: at };
    if (row) await row.update(fields, { transaction });
    else await MetricSetting.create({ organization_id: organizationId, ...fields }, { transaction });
    change.wrote('metric_settings');
  }
  change.audit({
    organizationId,
    actor,
    action: 'metric_settings.updated',
    target: { type: 'organization', id: organizationId },
    details: { version, ...(recompute ? { applies: 'after_recomputation' } : {}), ...edited.details },
  });
  return recompute ? { applied: inForce, updatedAt: row?.updated_at ?? null } : { applied: { ...inForce, version, settings: edited.settings }, updatedAt: at };
}

const SETTINGS = Object.keys(metricSettingsShape).join(', ');

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0 && issue.keys.includes('repository_production_environments')) {
    return 'A repository\'s own production environments are set one repository at a time (settings.metrics.setRepositoryProduction, npm run metrics-settings -- repo-production), not with the other settings';
  }
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0) return `No setting ${issue.keys.join(', ')}; the settings are ${SETTINGS}`;
  if (issue.code === 'invalid_type' && issue.path.length === 0) return `The settings must be an object of ${SETTINGS}`;
  return issue.message;
}

/** Each setting whose value differs, with its value before and after. */
function changedSettings(before: MetricSettingsDocument, after: MetricSettingsDocument): Record<string, { from: unknown; to: unknown }> {
  const keys = Object.keys(metricSettingsShape) as (keyof MetricSettingsDocument)[];
  return Object.fromEntries(keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((k) => [k, { from: before[k], to: after[k] }]));
}
