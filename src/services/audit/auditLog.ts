import { AuditEntry } from '../../../db/models';
import type { ListSource } from '../../persistence/query/listSource';
import { toAuditEntry } from '../../resources/audit';

export interface AuditFilters {
  action?: string;
  actor_user_id?: string;
}

/** An organization's audit log, optionally of one action or one user: each a range of its own index. */
export function organizationAuditLog(organizationId: string, filters: AuditFilters): ListSource<ReturnType<typeof toAuditEntry>, AuditEntry> {
  const where = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
  return { model: AuditEntry, where: { organization_id: organizationId, ...where }, toItem: toAuditEntry };
}
