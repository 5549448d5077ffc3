import { api, ApiError, call } from '../../pages/script/api';
import { $, field, h } from '../../pages/script/elements';
import type { DashboardType, MetricName, Scopes, View } from './answers';
import { manageSection } from './manage';
import { Figures, panelCard } from './panels';
import { addressOf, intervalOf, MetricsQuery, queryOf } from './query';

/** Each metric's procedure: the Metrics API's answer for the session, as `/v1/metrics/...` gives it. */
const FETCH: Record<MetricName, (query: MetricsQuery) => Promise<{ data: unknown }>> = {
  dora: (q) => api.dashboards.metrics.dora.query(q),
  'pull-requests': (q) => api.dashboards.metrics.pullRequests.query(q),
  flow: (q) => api.dashboards.metrics.flow.query(q),
  activity: (q) => api.dashboards.metrics.activity.query(q),
  collaboration: (q) => api.dashboards.metrics.collaboration.query(q),
  'ai-usage': (q) => api.dashboards.metrics.aiUsage.query(q),
  'ai-impact': (q) => api.dashboards.metrics.aiImpact.query(q),
  financial: (q) => api.dashboards.metrics.financial.query(q),
};

const VISIBILITY = { private: 'Only you (and the organization’s admins)', team: 'Shared with a team', organization: 'Shared with the organization' };

/** A view opened: its panels for the address's scope, window and interval; the form changes the address. */
export async function showView(viewId: string, catalog: readonly DashboardType[], scopes: Scopes, userId: string): Promise<void> {
  const view = await call(api.dashboards.view.query({ view_id: viewId }));
  const type = catalog.find((t) => t.key === view.type);
  const organization = scopes.find((o) => o.id === view.organization_id);
  document.title = `${view.name} · Dashboards · Platform`;
  $('#view-heading').textContent = view.name;
  $('#view-about').textContent = `${type?.name ?? view.type} · ${organization?.name ?? view.organization_id} · ${VISIBILITY[view.visibility]}`;
  $('#view-page').hidden = false;
  if (!type) {
    $('#view-alert').textContent = `This view's type, ${view.type}, is not in the catalog any more.`;
    return;
  }
  const render = () => showFigures(type, queryOf(window.location.search, view));
  queryForm(view, organization, render);
  window.addEventListener('popstate', () => {
    queryForm(view, organization, render);
    render();
  });
  if (view.owner_id === userId) {
    $('#view-manage').hidden = false;
    $('#manage').replaceChildren(manageSection(view, organization));
  }
  await render();
}

/** The scope, window and interval, as the address says; sending the form makes them the address. */
function queryForm(view: View, organization: Scopes[number] | undefined, render: () => Promise<void>): void {
  const query = queryOf(window.location.search, view);
  const scope = h(
    'select',
    { name: 'scope' },
    h('option', { value: `organization_id:${view.organization_id}` }, organization?.name ?? view.organization_id),
    (organization?.teams ?? []).map((t) => h('option', { value: `team_id:${t.id}` }, `Team ${t.name}`)),
  );
  scope.value = query.team_id ? `team_id:${query.team_id}` : `organization_id:${query.organization_id}`;
  const from = h('input', { type: 'date', name: 'from', value: query.from ?? '', required: true });
  const to = h('input', { type: 'date', name: 'to', value: query.to ?? '', required: true });
  const interval = h(
    'select',
    { name: 'interval' },
    ['month', 'week', 'day'].map((i) => h('option', { value: i }, `By ${i}`)),
    h('option', { value: 'none' }, 'Totals only'),
  );
  interval.value = query.interval ?? 'none';
  const form = $<HTMLFormElement>('#view-query');
  form.replaceChildren(field('Scope', scope), field('From', from), field('To', to), field('Interval', interval), h('p', {}, h('button', { type: 'submit' }, 'Show')));
  form.onsubmit = (event) => {
    event.preventDefault();
    const [key, id] = scope.value.split(':');
    const chosen: MetricsQuery = { ...(key === 'team_id' ? { team_id: id } : { organization_id: id }), from: from.value, to: to.value, interval: intervalOf(interval.value) };
    window.history.pushState(null, '', addressOf(view.id, chosen));
    render();
  };
}

/** Every panel, each metric asked once (one batched request); a refusal said once at the top and in each panel. */
async function showFigures(type: DashboardType, query: MetricsQuery): Promise<void> {
  const status = $('#view-status');
  const alert = $('#view-alert');
  status.textContent = 'Loading the figures…';
  alert.textContent = '';
  $('#panels').setAttribute('aria-busy', 'true');
  const metrics = [...new Set(type.panels.map((p) => p.metric))];
  const answers = await Promise.all(metrics.map((metric) => figuresOf(metric, query)));
  const byMetric = new Map(metrics.map((metric, i) => [metric, answers[i]]));
  const failures = [...new Set(answers.flatMap((a) => ('failure' in a ? [a.failure] : [])))];
  if (failures.length) alert.textContent = failures.join(' ');
  $('#panels').replaceChildren(...type.panels.map((panel) => panelCard(panel, byMetric.get(panel.metric)!)));
  $('#panels').removeAttribute('aria-busy');
  const period = query.interval ? `, by ${query.interval}` : '';
  status.textContent = failures.length === answers.length ? '' : `Figures from ${query.from} to ${query.to}${period}.`;
}

async function figuresOf(metric: MetricName, query: MetricsQuery): Promise<Figures> {
  try {
    return { data: (await call(FETCH[metric](query))).data };
  } catch (err) {
    if (err instanceof ApiError) return { failure: err.message };
    throw err;
  }
}
