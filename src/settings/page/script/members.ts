import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';
import { confirmingButton } from '../../../pages/script/confirm';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';

type Organization = Outputs['settings']['session']['organizations'][number];
type Members = Outputs['settings']['members']['list'];
type Member = Members['members'][number];
type Role = Member['role'];

const ROLES: readonly { value: Role; label: string }[] = [
  { value: 'admin', label: 'Admin' },
  { value: 'manager', label: 'Manager' },
  { value: 'collaborator', label: 'Collaborator' },
];
const roleName = (role: Role) => ROLES.find((r) => r.value === role)?.label ?? role;
/** The role picker; in a row, named for its member (`label`), as no visible label sits beside it. */
const roleChoice = (selected: Role, label?: string) =>
  h('select', { name: 'role', 'aria-label': label }, ROLES.map((r) => h('option', { value: r.value, selected: r.value === selected }, r.label)));

/**
 * An organization's members (docs/settings.md#members): listed by name with their role and state, added by e-mail,
 * given another role, removed after a confirmation. While the identity provider provisions them (an active SCIM token)
 * they are shown, not changed, and the section says where to change them.
 */
export function membersSection(org: Organization): HTMLElement {
  const parts = partsOf(
    subsection(`${org.id}-members`, 'Members', 'The people of the organization and their role. Those your identity provider provisions (SCIM) are changed there; otherwise here.'),
  );
  const of = { organization_id: org.id };
  const owned = h('p', { class: 'muted', hidden: true }, 'Your identity provider provisions this organization’s members (an active SCIM token): add, change and remove them there, where a change made here would be changed back.');
  parts.list.before(owned);

  const form = createForm(
    'Add a member',
    4,
    [
      field('E-mail', h('input', { type: 'email', name: 'email', maxLength: 320, required: true, autocomplete: 'off' }), 'They sign in with this address.'),
      field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' })),
      field('Role', roleChoice('collaborator'), 'Admins manage these settings; managers read their teams’ work; collaborators their own.'),
    ],
    'Add member',
    async (f) => {
      const added = await call(api.settings.members.add.mutate({ ...of, email: valueOf(f, 'email'), name: valueOf(f, 'name'), role: roleOf(valueOf(f, 'role')) }));
      await refresh();
      parts.done.textContent = `Added ${added.name} (${added.email}) as ${roleName(added.role).toLowerCase()}.`;
    },
  );
  parts.section.append(form);

  async function refresh(): Promise<void> {
    const answer = await call(api.settings.members.list.query(of));
    owned.hidden = !answer.provisioned_by_identity_provider;
    form.hidden = answer.provisioned_by_identity_provider;
    parts.list.replaceChildren(memberTable(answer));
  }

  function memberTable(answer: Members): HTMLElement {
    if (!answer.members.length) return h('p', { class: 'empty' }, 'No members yet.');
    const editable = !answer.provisioned_by_identity_provider;
    const rows = answer.members.map((m) => [m.name, m.email, roleName(m.role), m.status === 'active' ? 'active' : 'suspended', editable ? actions(m) : '–']);
    const shown = table(`Members of ${org.name}`, ['Name', 'E-mail', 'Role', 'State', 'Actions'], rows);
    return answer.total > answer.members.length ? h('div', {}, shown, h('p', { class: 'muted' }, `The first ${answer.members.length} of ${answer.total}, by name.`)) : shown;
  }

  function actions(m: Member): HTMLElement {
    const choice = roleChoice(m.role, `Role of ${m.name}`);
    return h(
      'span',
      { class: 'actions' },
      choice,
      h('button', { type: 'button', onclick: () => setRole(m, roleOf(choice.value)) }, 'Set role', hidden(` of ${m.name}`)),
      confirmingButton('Remove', 'Confirm remove', `${m.name} from ${org.name}`, () => remove(m)),
    );
  }

  const setRole = (m: Member, role: Role) =>
    rowAction(parts, async () => {
      if (role === m.role) return `${m.name} is ${roleName(role).toLowerCase()} already.`;
      await call(api.settings.members.setRole.mutate({ ...of, user_id: m.user_id, role }));
      await refresh();
      return `${m.name} is now ${roleName(role).toLowerCase()}.`;
    });

  const remove = (m: Member) =>
    rowAction(parts, async () => {
      await call(api.settings.members.remove.mutate({ ...of, user_id: m.user_id }));
      await refresh();
      return `Removed ${m.name} from ${org.name}; what they did stays.`;
    });

  attempt(parts.alert, refresh);
  return parts.section;
}

function roleOf(value: string): Role {
  const role = ROLES.find((r) => r.value === value);
  if (!role) throw new Error(`Unknown role ${value}`);
  return role.value;
}
