import { z } from 'zod';
import type { ChangeRunner } from '../../../persistence/changes/change';
import type { Actor } from '../../../persistence/changes/auditRecord';
import { invalid } from '../../../errors';
import { byKey, MAX_REPOSITORY_OVERRIDES, productionEnvironments } from './document';
import { MetricSettingsView, newSettingsVersion, settingsViewAfter } from './metricSettings';
import { resolve } from './teamRepositories';

export const OWN_PRODUCTION_EXPECTED = "production_environments must be a list of names or globs, or null for the organization's";
export const REPOSITORY_EXPECTED = 'repository must be a repository id or full name (owner/name)';

/** What an admin sends: a repository (id or full name) and its own production environments, or null for the organization's. */
export const RepositoryProductionInput = z.strictObject(
  {
    repository: z
      .string({ error: REPOSITORY_EXPECTED })
      .trim()
      .min(1, { error: 'repository must not be empty' })
      .max(200, { error: 'repository must be at most 200 characters' }),
    production_environments: productionEnvironments.nullable(),
  },
  { error: 'Send {repository, production_environments}' },
);

/**
 * A repository's own production environments (docs/metrics.md#a-repositorys-own-production-environments), in place
 * of the organization's, for the repositories that deploy to production under names of their own: set by admins
 * (tRPC `settings.metrics.setRepositoryProduction`) or an operator (`npm run metrics-settings -- repo-production`).
 * Like every setting of what counts, a change is a new version of the organization's settings (newSettingsVersion),
 * audited as `metric_settings.updated` with the repository and its list before and after. The figures apply it as
 * they read, to the whole history at once.
 */
export class RepositoryProduction {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Async so that a refused input, checked before any transaction opens, rejects like the rest. */
  async set(organizationId: string, input: unknown, actor: Actor): Promise<MetricSettingsView> {
    const parsed = RepositoryProductionInput.safeParse(input);
    if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => issue.message).join('; '));
    const { repository, production_environments: entries } = parsed.data;
    return this.changes.run(async (change) => {
      const after = await newSettingsVersion(change, organizationId, actor, this.now(), async (before) => {
        const [repositoryId] = await resolve(organizationId, [repository], change.transaction);
        const overrides = { ...before.settings.repository_production_environments };
        const from = overrides[repositoryId] ?? null;
        if (JSON.stringify(from) === JSON.stringify(entries)) return null;
        if (entries) overrides[repositoryId] = entries;
        else delete overrides[repositoryId];
        if (Object.keys(overrides).length > MAX_REPOSITORY_OVERRIDES) {
          throw invalid(`At most ${MAX_REPOSITORY_OVERRIDES} repositories may have production environments of their own; give another one back the organization's first`);
        }
        return {
          settings: { ...before.settings, repository_production_environments: byKey(overrides) },
          details: { repository_id: repositoryId, changed: { production_environments: { from, to: entries } } },
        };
      });
      return settingsViewAfter(change, organizationId, after);
    });
  }
}
