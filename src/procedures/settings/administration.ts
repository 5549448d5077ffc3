import { guard } from '../../access/guard';
import { userActor } from '../../persistence/changes/auditRecord';
import { ChangeAuthority } from '../../services/audit/actor';
import type { SettingsContext } from '../context';

/**
 * An admin's change to their organization: 404/403 first (guard), then the authority every writer takes, so a thing
 * of another organization named by id is "not found" and the audit log says who did it.
 */
export async function asAdmin(ctx: SettingsContext, organizationId: string): Promise<Required<ChangeAuthority>> {
  const { principal } = ctx.settings;
  await guard.organizationAdministration(principal, organizationId);
  return { actor: userActor(principal.userId), organizationId };
}
