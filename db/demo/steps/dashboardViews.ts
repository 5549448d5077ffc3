import { DASHBOARD_CATALOG_KEYS, FIXTURE_DASHBOARD_VIEWS } from '../fixtures/dashboardViews';
import { Row } from '../inserter';
import { OrgState, Seeding } from '../state';
import { catalogName } from '../text';
import { createdAt, END_MS, toDate } from '../time';
import { VIEW_SUFFIXES } from '../words';

/** Dashboard views: organization, team and private ones. */
export async function seedDashboardViews({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
  const rngView = root.fork('dashboard_views');
  const viewRows: Row[] = FIXTURE_DASHBOARD_VIEWS.map((v) => ({ ...v, created_at: toDate(v.created_at) }));
  for (const org of orgs) {
    if (org.members.length === 0) continue;
    let previousMs = -1;
    const at = (fromMs: number) => {
      const t = previousMs >= fromMs && rngView.chance(spec.tieChance * 3) ? previousMs : createdAt(rngView, fromMs, END_MS);
      previousMs = t;
      return new Date(t);
    };
    const leads = org.members.filter((m) => m.role !== 'collaborator');
    for (let i = 0; i < spec.orgViewsPerOrg; i++) {
      const owner = rngView.pick(leads.length > 0 ? leads : org.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `${org.name} ${catalogName(type)} ${rngView.pick(VIEW_SUFFIXES)}`,
        type,
        visibility: 'organization',
        organization_id: org.id,
        team_id: null,
        owner_id: owner.user.id,
        created_at: at(Math.max(owner.joinedMs, org.createdMs)),
      });
    }
    for (const team of org.teams) {
      if (team.members.length === 0 || !rngView.chance(spec.teamViewChance)) continue;
      const managers = team.members.filter((x) => x.role === 'manager');
      const owner = rngView.pick(managers.length > 0 && rngView.chance(0.7) ? managers : team.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `${team.name} ${catalogName(type)}`,
        type,
        visibility: 'team',
        organization_id: org.id,
        team_id: team.id,
        owner_id: owner.member.user.id,
        created_at: at(owner.joinedMs),
      });
    }
    const privateCount = Math.max(1, Math.round(org.members.length * spec.privateViewsPerMember));
    for (let i = 0; i < privateCount; i++) {
      const owner = rngView.pick(org.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `My ${catalogName(type).toLowerCase()} ${rngView.pick(VIEW_SUFFIXES)}`,
        type,
        visibility: 'private',
        organization_id: org.id,
        team_id: null,
        owner_id: owner.user.id,
        created_at: at(owner.joinedMs),
      });
    }
  }
  await ins.insertAll('dashboard_views', viewRows);
}
