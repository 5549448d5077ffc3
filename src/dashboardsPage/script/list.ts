import { attempt } from '../../pages/script/attempt';
import { api, call } from '../../pages/script/api';
import { $, field, h, table, valueOf } from '../../pages/script/elements';
import type { DashboardType, Scopes, Views } from './answers';
import { visibilityChoices, visibilityOf } from './manage';

const SHARED = { private: 'Private', team: 'Team', organization: 'Organization' };

/** The views one sees, each a link to open it; and a form to make one. */
export async function showViews(catalog: readonly DashboardType[], scopes: Scopes, userId: string): Promise<void> {
  const { views, more } = await call(api.dashboards.views.query());
  $('#views').replaceChildren(viewTable(views, catalog, scopes, userId), more ? h('p', { class: 'muted' }, 'The first 200 by name are listed.') : '');
  $('#create').replaceChildren(scopes.length ? createForm(catalog, scopes) : h('p', { class: 'empty' }, 'You are not an active member of any organization.'));
  $('#views-page').hidden = false;
}

function viewTable(views: Views['views'], catalog: readonly DashboardType[], scopes: Scopes, userId: string): HTMLElement {
  if (!views.length) return h('p', { class: 'empty' }, 'No dashboards yet: make one below.');
  const typeName = (key: string) => catalog.find((t) => t.key === key)?.name ?? key;
  const orgName = (id: string) => scopes.find((o) => o.id === id)?.name ?? id;
  return table(
    'Dashboards you can open',
    ['Name', 'Type', 'Organization', 'Shared with', 'Owner'],
    views.map((v) => [h('a', { href: `/dashboards/${encodeURIComponent(v.id)}` }, v.name), typeName(v.type), orgName(v.organization_id), SHARED[v.visibility], v.owner_id === userId ? 'You' : 'Someone else']),
  );
}

/** A new view: its organization, type (money only where one is an admin), name and who sees it. */
function createForm(catalog: readonly DashboardType[], scopes: Scopes): HTMLElement {
  const alert = h('div', { class: 'alert', role: 'alert' });
  const organization = h('select', { name: 'organization_id' }, scopes.map((o) => h('option', { value: o.id }, o.name)));
  const type = h('select', { name: 'type' });
  const name = h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' });
  const sharing = h('span', {});
  const refresh = () => {
    const org = scopes.find((o) => o.id === organization.value);
    const offered = catalog.filter((t) => !t.for_admins || org?.role === 'admin');
    type.replaceChildren(...offered.map((t) => h('option', { value: t.key }, t.name)));
    const { visibility, team } = visibilityChoices(org);
    sharing.replaceChildren(field('Who sees it', visibility), field('Team', team, 'Needed to share with a team'));
  };
  organization.addEventListener('change', refresh);
  refresh();
  const form = h('form', { class: 'create', noValidate: true }, field('Organization', organization), field('Type', type), field('Name', name), sharing, h('p', {}, h('button', { type: 'submit' }, 'Make dashboard')), alert);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(alert, async () => {
      const made = await call(
        api.dashboards.create.mutate({
          organization_id: valueOf(form, 'organization_id'),
          type: typeKeyOf(catalog, valueOf(form, 'type')),
          name: valueOf(form, 'name'),
          visibility: visibilityOf(valueOf(form, 'visibility')),
          team_id: valueOf(form, 'team_id') || null,
        }),
      );
      window.location.assign(`/dashboards/${encodeURIComponent(made.id)}`);
    });
  });
  return form;
}

/** The chosen type, one of the catalog's. */
function typeKeyOf(catalog: readonly DashboardType[], value: string): DashboardType['key'] {
  const type = catalog.find((t) => t.key === value);
  if (!type) throw new Error('Choose a type of dashboard.');
  return type.key;
}
