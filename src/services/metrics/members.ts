import { conditions } from '../../access/conditions';
import { MetricSql } from './reading/sql';

/**
 * The scope's members as figures count them: the organization's or the team's memberships during the window (an
 * adoption rate's population, the people who could review, or whose time is costed). A member counts from the
 * window's first day until suspended: the service knows when a membership was suspended, not when the person
 * joined (a membership is created when the organization's identity provider or an operator first names them, often
 * long after they started), so a member is taken to have been there all along.
 */
export const membershipTable = (q: MetricSql) =>
  q.scope.teamId ? { table: 'team_memberships', owner: 'm.team_id = :scope_team_id' } : { table: 'organization_memberships', owner: 'm.organization_id = :scope_organization_id' };

/**
 * One row: how many members the scope had during the window, and their days in it. An active member was there all
 * window, so they are counted from the (scope, status) index alone; only the few who left are read for their days.
 */
export function membersInWindowSql(q: MetricSql): string {
  const { table, owner } = membershipTable(q);
  const active = conditions.activeMembershipSql('m');
  return `SELECT a.members + s.members AS members, a.members * ${q.window.days} + COALESCE(s.days, 0) AS days
    FROM (SELECT COUNT(*) AS members FROM ${table} m WHERE ${owner} AND ${active}) AS a
    CROSS JOIN (SELECT COUNT(*) AS members, SUM(${memberDays(q)}) AS days FROM ${table} m WHERE ${owner} AND NOT (${active}) AND m.suspended_at > ${q.at(q.window.from)}) AS s`;
}

/** Membership `m` during the window: active, or suspended after the window began. */
export const memberDuringWindow = (q: MetricSql) => `(${conditions.activeMembershipSql('m')} OR m.suspended_at > ${q.at(q.window.from)})`;

/** The part of the window membership `m` (one during the window) was a member, in days: all of it while active (a fraction, never integer division). */
export function memberDays(q: MetricSql): string {
  const before = q.at(q.window.before);
  const end = `CASE WHEN m.suspended_at < ${before} THEN m.suspended_at ELSE ${before} END`;
  return `CASE WHEN ${conditions.activeMembershipSql('m')} THEN ${q.window.days}.0 ELSE ${q.hours(q.at(q.window.from), end)} / 24 END`;
}
