import { Op } from 'sequelize';
import { App, Organization, OrganizationMembership, Team } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { conditions } from '../../access/conditions';
import { memberColumns, toOrganization, toOrganizationMember, toTeam } from '../../resources/people';
import { toApp } from '../../resources/integrations';
import type { ListSource } from '../../persistence/query/listSource';

export function accessibleOrganizations(p: Principal): ListSource<ReturnType<typeof toOrganization>, Organization> {
  return {
    model: Organization,
    where: conditions.accessibleOrganizations(p, 'id'),
    toItem: toOrganization,
  };
}

export function organizationMembers(organizationId: string): ListSource<ReturnType<typeof toOrganizationMember>, OrganizationMembership> {
  return {
    model: OrganizationMembership,
    where: { organization_id: organizationId, ...conditions.activeMembership },
    columns: memberColumns,
    toItem: toOrganizationMember,
  };
}

export function organizationTeams(p: Principal, organizationId: string): ListSource<ReturnType<typeof toTeam>, Team> {
  return {
    model: Team,
    where: { [Op.and]: [{ organization_id: organizationId }, ...conditions.teamScope(p, 'id')] },
    toItem: toTeam,
  };
}

export function organizationApps(organizationId: string): ListSource<ReturnType<typeof toApp>, App> {
  return {
    model: App,
    where: { organization_id: organizationId },
    toItem: toApp,
  };
}
