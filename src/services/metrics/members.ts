import { conditions } from '../../access/conditions';
import { MetricSql } from './sql';

/**
 * The scope's members as figures count them: the organization's or the team's memberships, today (an adoption
 * rate's population) or during the window (the people who could review, or whose time is costed). For the window,
 * a member counts from its first day until suspended: the service knows when a membership was suspended, not when
 * the person joined (a membership is created when the organization's identity provider or an operator first
 * names them, often long after they started), so a member is taken to have been there all along.
 */
const membershipTable = (q: MetricSql) =>
  q.scope.teamId ? { table: 'team_memberships', owner: 'm.team_id = :scope_team_id' } : { table: 'organization_memberships', owner: 'm.organization_id = :scope_organization_id' };

export function membersNowSql(q: MetricSql): string {
  const { table, owner } = membershipTable(q);
  return `SELECT COUNT(*) AS members FROM ${table} m WHERE ${owner} AND ${conditions.activeMembershipSql('m')}`;
}

/** Each member of the scope during the window, with the part of the window they were a member, in days. */
export function membersInWindowSql(q: MetricSql): string {
  const { table, owner } = membershipTable(q);
  const from = q.at(q.window.from);
  const before = q.at(q.window.before);
  const active = conditions.activeMembershipSql('m');
  const end = `CASE WHEN NOT (${active}) AND m.suspended_at < ${before} THEN m.suspended_at ELSE ${before} END`;
  return `SELECT m.user_id, ${q.hours(from, end)} / 24 AS days FROM ${table} m WHERE ${owner} AND ${memberDuringWindow(q)}`;
}

/** How many members the scope had during the window, without each one's days. */
export function membersInWindowCountSql(q: MetricSql): string {
  const { table, owner } = membershipTable(q);
  return `SELECT COUNT(*) AS members FROM ${table} m WHERE ${owner} AND ${memberDuringWindow(q)}`;
}

/** Active, or suspended after the window began. */
const memberDuringWindow = (q: MetricSql) => `(${conditions.activeMembershipSql('m')} OR m.suspended_at > ${q.at(q.window.from)})`;
