import { DashboardView } from '../../../db/models';
import { AuditAction, userActor } from '../../persistence/changes/auditRecord';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import { notFound } from '../../errors';
import type { DashboardTypeKey } from './catalog';

export type Visibility = DashboardView['visibility'];

export interface NewDashboardView {
  organizationId: string;
  type: DashboardTypeKey;
  name: string;
  visibility: Visibility;
  /** The team the view is about or shared with; required for `team` visibility. */
  teamId: string | null;
}

/**
 * Dashboard views made, renamed, shared and deleted by their owners on the dashboards page (docs/dashboards.md), each
 * one change with its audit entry. Who may do what is the procedures' (the guard's) to check before.
 */
export class DashboardViewWriter {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date = () => new Date(),
  ) {}

  create(ownerId: string, view: NewDashboardView): Promise<DashboardView> {
    return this.changes.run(async (change) => {
      const created = await DashboardView.create(
        {
          id: newId('view'),
          name: view.name,
          type: view.type,
          visibility: view.visibility,
          organization_id: view.organizationId,
          team_id: view.teamId,
          owner_id: ownerId,
          created_at: this.now(),
        },
        { transaction: change.transaction },
      );
      recorded(change, created, 'dashboard_view.created', { name: view.name, type: view.type, visibility: view.visibility, team_id: view.teamId });
      return created;
    });
  }

  rename(viewId: string, name: string, by: string): Promise<DashboardView> {
    return this.changed(viewId, by, { name }, 'dashboard_view.renamed');
  }

  share(viewId: string, placement: { visibility: Visibility; teamId: string | null }, by: string): Promise<DashboardView> {
    return this.changed(viewId, by, { visibility: placement.visibility, team_id: placement.teamId }, 'dashboard_view.shared');
  }

  delete(viewId: string, by: string): Promise<void> {
    return this.changes.run(async (change) => {
      const view = await found(viewId, change);
      await view.destroy({ transaction: change.transaction });
      recorded(change, view, 'dashboard_view.deleted', { name: view.name }, by);
    });
  }

  private changed(viewId: string, by: string, fields: Partial<Pick<DashboardView, 'name' | 'visibility' | 'team_id'>>, action: 'dashboard_view.renamed' | 'dashboard_view.shared'): Promise<DashboardView> {
    return this.changes.run(async (change) => {
      const view = await found(viewId, change);
      await view.update(fields, { transaction: change.transaction });
      recorded(change, view, action, fields, by);
      return view;
    });
  }
}

async function found(viewId: string, change: Change): Promise<DashboardView> {
  const view = await DashboardView.findByPk(viewId, { transaction: change.transaction, lock: change.transaction.LOCK.UPDATE });
  if (!view) throw notFound('Dashboard view not found');
  return view;
}

/** The change's audit entry, and the lists of views it changes (their totals are cached by table version). */
function recorded(change: Change, view: DashboardView, action: AuditAction, details: Record<string, unknown>, by = view.owner_id): void {
  change.wrote('dashboard_views');
  change.audit({ organizationId: view.organization_id, actor: userActor(by), action, target: { type: 'dashboard_view', id: view.id }, details });
}
