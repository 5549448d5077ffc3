import { attempt } from '../../pages/script/attempt';
import { api, call } from '../../pages/script/api';
import { confirmingButton } from '../../pages/script/confirm';
import { field, h, valueOf } from '../../pages/script/elements';
import type { Scopes, View } from './answers';

/** Where a view may be shared: nobody else, a team the owner is in (any team for an admin), the organization. */
export function visibilityChoices(organization: Scopes[number] | undefined) {
  const teams = (organization?.teams ?? []).filter((t) => t.member || organization?.role === 'admin');
  return {
    visibility: h(
      'select',
      { name: 'visibility' },
      h('option', { value: 'private' }, 'Only me'),
      teams.length ? h('option', { value: 'team' }, 'A team') : null,
      h('option', { value: 'organization' }, 'The whole organization'),
    ),
    team: h('select', { name: 'team_id' }, h('option', { value: '' }, 'No team'), teams.map((t) => h('option', { value: t.id }, t.name))),
  };
}

/** The owner's changes to a view: a new name, who sees it, or gone. */
export function manageSection(view: View, organization: Scopes[number] | undefined): HTMLElement {
  const alert = h('div', { class: 'alert', role: 'alert' });
  const done = h('p', { class: 'done', role: 'status' });
  const name = h('input', { type: 'text', name: 'name', value: view.name, maxLength: 200, required: true, autocomplete: 'off' });
  const rename = h('form', { class: 'create' }, h('h3', {}, 'Rename'), field('Name', name), h('p', {}, h('button', { type: 'submit' }, 'Rename')));
  rename.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(alert, async () => {
      const renamed = await call(api.dashboards.rename.mutate({ view_id: view.id, name: valueOf(rename, 'name') }));
      document.querySelector('#view-heading')!.textContent = renamed.name;
      done.textContent = `Renamed to ${renamed.name}.`;
    });
  });
  const { visibility, team } = visibilityChoices(organization);
  visibility.value = view.visibility;
  team.value = view.team_id ?? '';
  const share = h('form', { class: 'create' }, h('h3', {}, 'Share'), field('Who sees it', visibility), field('Team', team, 'The team it is shared with, or is about'), h('p', {}, h('button', { type: 'submit' }, 'Share')));
  share.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(alert, async () => {
      const teamId = valueOf(share, 'team_id') || null;
      const shared = await call(api.dashboards.share.mutate({ view_id: view.id, visibility: visibilityOf(valueOf(share, 'visibility')), team_id: teamId }));
      done.textContent = shared.visibility === 'private' ? 'Only you see it now.' : 'Shared: anyone it is shared with can open this address.';
    });
  });
  const remove = confirmingButton('Delete', 'Delete for good', `dashboard ${view.name}`, () =>
    attempt(alert, async () => {
      await call(api.dashboards.delete.mutate({ view_id: view.id }));
      window.location.assign('/dashboards/');
    }),
  );
  return h('div', {}, rename, share, h('p', {}, remove), done, alert);
}

const VISIBILITIES = ['private', 'team', 'organization'] as const;
export const visibilityOf = (value: string): (typeof VISIBILITIES)[number] => VISIBILITIES.find((v) => v === value) ?? 'private';
