import { Op } from 'sequelize';
import { App, Organization, OrganizationMembership, Team } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { conditions } from '../../access/conditions';
import { memberColumns, toOrganization, toOrganizationMember, toTeam } from '../../resources/people';
import { toApp } from '../../resources/integrations';
import type { ListSource } from '../query/listing';

export function accessibleOrganizations(p: Principal): ListSource<ReturnType<typeof toOrganization>> {
  const ids = rules.accessibleOrganizationIds(p);
  return {
    model: Organization,
    where: conditions.accessibleOrganizations(p, 'id'),
    toItem: (row) => toOrganization(row as Organization),
    countKey: `organizations|${[...ids].sort().join(',')}`,
  };
}

export function organizationMembers(organizationId: string): ListSource<ReturnType<typeof toOrganizationMember>> {
  return {
    model: OrganizationMembership,
    where: { organization_id: organizationId, ...conditions.activeMembership },
    columns: memberColumns,
    toItem: (row) => toOrganizationMember(row as OrganizationMembership),
    countKey: `org-members|${organizationId}`,
  };
}

export function organizationTeams(p: Principal, organizationId: string): ListSource<ReturnType<typeof toTeam>> {
  const teamFilter = rules.teamFilter(p);
  return {
    model: Team,
    where: { [Op.and]: [{ organization_id: organizationId }, ...conditions.teamScope(p, 'id')] },
    toItem: (row) => toTeam(row as Team),
    countKey: `org-teams|${organizationId}|${teamFilter ? [...teamFilter].sort().join(',') : '*'}`,
  };
}

export function organizationApps(organizationId: string): ListSource<ReturnType<typeof toApp>> {
  return {
    model: App,
    where: { organization_id: organizationId },
    toItem: (row) => toApp(row as App),
    countKey: `org-apps|${organizationId}`,
  };
}
