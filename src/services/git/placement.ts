/**
 * Where an incident or a deployment is stored (docs/incidents.md): its organization always; its repository when
 * known; and what brought it. A git provider's is found again by repository and provider id; an app's (PagerDuty,
 * Opsgenie, the deployments API) by app and provider id, whatever repository its board is mapped to meanwhile.
 */
export interface Placement {
  organizationId: string;
  /** The repository it is stored under: a board's first (docs/incidents.md#mapping). */
  repository: PlacedRepository | null;
  /**
   * Every repository an incident belongs to, `repository` first: a board may be mapped to several. Absent, it
   * belongs to `repository` alone (a git provider's issue; a deployment always does).
   */
  repositories?: readonly string[];
  source: { gitAppId: string } | { appId: string; boardKey: string | null };
}

/** The repositories an incident of this placement belongs to. */
export const repositoriesOf = (placement: Placement): readonly string[] => placement.repositories ?? (placement.repository ? [placement.repository.id] : []);

export interface PlacedRepository {
  id: string;
  git_app_id: string;
  organization_id: string;
}

/** The key a later delivery of the same provider object is found by, beside its `external_id`. */
export function storedBy(placement: Placement): { repository_id: string } | { app_id: string } {
  if ('appId' in placement.source) return { app_id: placement.source.appId };
  if (!placement.repository) throw new Error('A git provider’s incident or deployment always has its repository');
  return { repository_id: placement.repository.id };
}

/** The row's placement columns. */
export function placedColumns(placement: Placement) {
  const fromApp = 'appId' in placement.source ? placement.source : null;
  return {
    organization_id: placement.organizationId,
    repository_id: placement.repository?.id ?? null,
    git_app_id: placement.repository?.git_app_id ?? ('gitAppId' in placement.source ? placement.source.gitAppId : null),
    app_id: fromApp?.appId ?? null,
    board_key: fromApp?.boardKey ?? null,
  };
}

/**
 * The marks a deployment's repository gives it (what it shipped, whether an incident of that repository blamed it or
 * was open when it finished), cleared on one that has no repository: they are recomputed only per repository
 * (rollups/shippedChanges.ts), so a deployment that left its repository would keep them stale.
 */
export const UNPLACED_MARKS = { shipped_ai: false, blamed: false, rework: false } as const;
