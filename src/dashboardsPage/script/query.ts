import type { Inputs } from '../../pages/script/api';

/** What a view is opened for, as the address holds it: the Metrics API's own parameters (docs/dashboards.md). */
export type MetricsQuery = Inputs['dashboards']['metrics']['dora'];
export type Interval = NonNullable<MetricsQuery['interval']>;

const DAY_MS = 86_400_000;
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const INTERVALS: readonly Interval[] = ['day', 'week', 'month'];

/**
 * The address's query, with what it leaves out filled in: the view's team (or else its organization), the year
 * ending today, by month. The API checks what is given; its refusals are shown as they are.
 */
export function queryOf(search: string, view: { organization_id: string; team_id: string | null }, today = new Date()): MetricsQuery {
  const params = new URLSearchParams(search);
  const teamId = params.get('team_id');
  const organizationId = params.get('organization_id');
  const scope = teamId ? { team_id: teamId } : organizationId ? { organization_id: organizationId } : view.team_id ? { team_id: view.team_id } : { organization_id: view.organization_id };
  const to = params.get('to') ?? dayOf(today);
  const from = params.get('from') ?? dayOf(new Date(Date.parse(to) - 364 * DAY_MS));
  const asked = params.get('interval');
  const interval = asked === 'none' ? undefined : (intervalOf(asked ?? '') ?? 'month');
  return { ...scope, from, to, interval };
}

/** A form's or an address's interval, if it is one. */
export const intervalOf = (value: string): Interval | undefined => INTERVALS.find((i) => i === value);

/** The address of a view opened for a query: shareable as a link. */
export function addressOf(viewId: string, query: MetricsQuery): string {
  const params = new URLSearchParams();
  if (query.team_id) params.set('team_id', query.team_id);
  else if (query.organization_id) params.set('organization_id', query.organization_id);
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  params.set('interval', query.interval ?? 'none');
  return `/dashboards/${encodeURIComponent(viewId)}?${params}`;
}
