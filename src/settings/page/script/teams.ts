import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';
import { confirmingButton } from '../../../pages/script/confirm';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';

type Organization = Outputs['settings']['session']['organizations'][number];
type Team = Outputs['settings']['teams']['list'][number];
type Members = Outputs['settings']['teams']['members'];

/**
 * An organization's teams (docs/settings.md#teams): listed with their members' number, made, renamed, deleted, their
 * members added by e-mail and taken off, a manager named. A team its identity provider owns is shown, not changed.
 */
export function teamsSection(org: Organization): HTMLElement {
  const parts = partsOf(
    subsection(`${org.id}-teams`, 'Teams', 'The organization’s teams. Teams your identity provider provisions (SCIM) are changed there; others here.'),
  );
  const of = { organization_id: org.id };
  // One team's panel at a time, between the list and the create form: renaming it, or its members.
  const panel = h('div', { class: 'team-panel' });
  parts.secretSlot.before(panel);

  async function refresh(): Promise<void> {
    parts.list.replaceChildren(teamTable(await call(api.settings.teams.list.query(of))));
  }

  function teamTable(teams: readonly Team[]): HTMLElement {
    if (!teams.length) return h('p', { class: 'empty' }, 'No teams yet.');
    return table(
      `Teams of ${org.name}`,
      ['Name', 'Members', 'Managed by', 'Actions'],
      teams.map((team) => [
        team.name,
        String(team.members),
        team.provisioned_by_identity_provider ? 'Identity provider' : 'This page',
        h(
          'span',
          { class: 'actions' },
          h('button', { type: 'button', onclick: () => showMembers(team) }, 'Members', hidden(` of ${team.name}`)),
          team.provisioned_by_identity_provider ? null : h('button', { type: 'button', onclick: () => showRename(team) }, 'Rename', hidden(` ${team.name}`)),
          team.provisioned_by_identity_provider ? null : confirmingButton('Delete', 'Confirm delete', `team ${team.name}`, () => deleteTeam(team)),
        ),
      ]),
    );
  }

  function closePanel(): void {
    panel.replaceChildren();
    parts.heading.focus();
  }

  function deleteTeam(team: Team): Promise<void> {
    return rowAction(parts, async () => {
      await call(api.settings.teams.delete.mutate({ ...of, team_id: team.id }));
      panel.replaceChildren();
      await refresh();
      return `Deleted team ${team.name}; its members stay in the organization.`;
    });
  }

  function showRename(team: Team): void {
    const form = createForm(`Rename ${team.name}`, 4, [field('New name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off', value: team.name }))], 'Rename', async (f) => {
      const renamed = await call(api.settings.teams.rename.mutate({ ...of, team_id: team.id, name: valueOf(f, 'name') }));
      await refresh();
      closePanel();
      parts.done.textContent = `Renamed ${team.name} to ${renamed.name}.`;
    });
    form.append(h('p', { class: 'actions' }, h('button', { type: 'button', onclick: closePanel }, 'Cancel', hidden(' renaming'))));
    panel.replaceChildren(form);
    form.querySelector('input')?.focus();
  }

  async function showMembers(team: Team): Promise<void> {
    const headingId = `${team.id}-members-heading`;
    const heading = h('h4', { id: headingId, tabIndex: -1 }, `Members of ${team.name}`);
    const alert = h('div', { class: 'alert', role: 'alert' });
    const done = h('p', { class: 'done', role: 'status' });
    const list = h('div', { class: 'list' });
    const editable = !team.provisioned_by_identity_provider;
    const section = h('section', { class: 'card', 'aria-labelledby': headingId }, heading, alert, done, list);

    async function load(): Promise<void> {
      list.replaceChildren(memberTable(await call(api.settings.teams.members.query({ ...of, team_id: team.id }))));
    }

    function memberTable(answer: Members): HTMLElement {
      if (!answer.members.length) return h('p', { class: 'empty' }, 'No members yet.');
      const rows = answer.members.map((m) => [
        m.name,
        m.email,
        m.role === 'manager' ? 'Manager' : 'Member',
        m.status === 'active' ? 'active' : 'suspended',
        editable
          ? h(
              'span',
              { class: 'actions' },
              h('button', { type: 'button', onclick: () => setRole(m.user_id, m.name, m.role === 'manager' ? 'member' : 'manager') }, m.role === 'manager' ? 'Make member' : 'Make manager', hidden(` ${m.name}`)),
              confirmingButton('Remove', 'Confirm remove', `${m.name} from ${team.name}`, () => remove(m.user_id, m.name)),
            )
          : '–',
      ]);
      const shown = table(`Members of ${team.name}`, ['Name', 'E-mail', 'Role', 'State', 'Actions'], rows);
      return answer.total > answer.members.length ? h('div', {}, shown, h('p', { class: 'muted' }, `The first ${answer.members.length} of ${answer.total}, by name.`)) : shown;
    }

    const act = async (work: () => Promise<string>) => {
      done.textContent = '';
      await attempt(alert, async () => {
        done.textContent = await work();
        await Promise.all([load(), refresh()]);
      });
      if (!document.activeElement || document.activeElement === document.body) heading.focus();
    };
    const remove = (userId: string, name: string) =>
      act(async () => {
        await call(api.settings.teams.removeMember.mutate({ ...of, team_id: team.id, user: userId }));
        return `Removed ${name} from ${team.name}.`;
      });
    const setRole = (userId: string, name: string, role: 'member' | 'manager') =>
      act(async () => {
        await call(api.settings.teams.setRole.mutate({ ...of, team_id: team.id, user_id: userId, role }));
        return role === 'manager' ? `${name} manages ${team.name}: they read its members’ interactions.` : `${name} is a member of ${team.name}, no longer its manager.`;
      });

    if (editable) {
      section.append(
        createForm(`Add a member to ${team.name}`, 5, [field('E-mail', h('input', { type: 'email', name: 'user', maxLength: 320, required: true, autocomplete: 'off' }), 'An active member of the organization.')], 'Add member', async (f) => {
          const email = valueOf(f, 'user').trim();
          await call(api.settings.teams.addMember.mutate({ ...of, team_id: team.id, user: email }));
          done.textContent = `Added ${email} to ${team.name}.`;
          await Promise.all([load(), refresh()]);
        }),
      );
    } else section.append(h('p', { class: 'muted' }, 'Your identity provider provisions this team: change its members there.'));
    section.append(h('p', { class: 'actions' }, h('button', { type: 'button', onclick: closePanel }, 'Close', hidden(` members of ${team.name}`))));
    panel.replaceChildren(section);
    await attempt(alert, load);
    heading.focus();
  }

  const form = createForm('Make a team', 4, [field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' }))], 'Make team', async (f) => {
    const created = await call(api.settings.teams.create.mutate({ ...of, name: valueOf(f, 'name') }));
    await refresh();
    parts.done.textContent = `Made team ${created.name}. Add its members with “Members”.`;
  });
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}
