import type { Actor } from '../../persistence/changes/auditRecord';

/**
 * Who asks for a change to an organization's settings, and where: the settings pass the organization the caller
 * administers, and a thing of another organization is then "not found" (its id tells nothing). The CLIs pass neither.
 */
export interface ChangeAuthority {
  actor?: Actor;
  organizationId?: string;
}

/** Whether a row of `organizationId` may be changed under `by`. */
export const isWithinAuthority = (by: ChangeAuthority, organizationId: string): boolean =>
  by.organizationId === undefined || by.organizationId === organizationId;
