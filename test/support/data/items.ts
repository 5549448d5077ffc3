import type { DashboardView } from '../../../db/models';
import { FIXTURE_COMMITS } from '../../../db/demo/fixtures/commits';
import { FIXTURE_DASHBOARD_VIEWS } from '../../../db/demo/fixtures/dashboardViews';
import { FIXTURE_INTERACTIONS } from '../../../db/demo/fixtures/interactions';
import { FIXTURE_ORGANIZATIONS } from '../../../db/demo/fixtures/organizations';
import { FIXTURE_TEAMS } from '../../../db/demo/fixtures/teams';

/** The fixture row with this id; throws when there is none. */
export const find = <T extends { id: string }>(rows: readonly T[], id: string): T => {
  const row = rows.find((r) => r.id === id);
  if (!row) throw new Error(`no fixture ${id}`);
  return row;
};

// Wire shapes of fixture records (docs/api.md#items-and-their-fields), built from db/demo/fixtures/
export const orgItem = (id: string) => ({ ...find(FIXTURE_ORGANIZATIONS, id) });
export const teamItem = (id: string) => ({ ...find(FIXTURE_TEAMS, id) });
export const viewItem = (id: string) => ({ ...find(FIXTURE_DASHBOARD_VIEWS, id) });
export const interactionItem = (id: string) => {
  const { organization_id: _internal, ...item } = find(FIXTURE_INTERACTIONS, id);
  return item;
};
export const commitItem = (id: string) => {
  const { git_app_id: _app, organization_id: _org, ...item } = find(FIXTURE_COMMITS, id);
  return { ...item, ai_assisted: false };
};

/** The wire shape of a dashboard view read from the database (generated rows included). */
export const dbViewItem = (v: DashboardView) => ({
  id: v.id,
  name: v.name,
  type: v.type,
  visibility: v.visibility,
  organization_id: v.organization_id,
  team_id: v.team_id,
  owner_id: v.owner_id,
  created_at: v.created_at.toISOString(),
});
