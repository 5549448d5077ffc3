import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { h, hidden, nextId, table, valueOf, when } from '../../../pages/script/elements';

type Source = Outputs['settings']['setup']['sources'][number];
type Unlinked = Outputs['settings']['accounts']['unlinked'];
type Account = Unlinked['accounts'][number];
type Kind = keyof Account['by_kind'];

/** The kinds of activity in words, one and many, in the order `apps|gitapps unlinked` prints them. */
const KIND_WORDS: readonly [Kind, string, string][] = [
  ['commit', 'commit', 'commits'],
  ['pull_request', 'pull request', 'pull requests'],
  ['review', 'review', 'reviews'],
  ['task_assigned', 'task assigned', 'tasks assigned'],
  ['message', 'message', 'messages'],
];

function activityWords(account: Account): string {
  return KIND_WORDS.flatMap(([kind, one, many]) => {
    const n = account.by_kind[kind];
    return n ? [`${n} ${n === 1 ? one : many}`] : [];
  }).join(', ');
}

export interface PeopleToLink {
  element: HTMLElement;
  heading: HTMLElement;
  load: () => Promise<void>;
}

/**
 * A git app's or app's accounts with activity and no member, busiest first (docs/settings.md#setup), each with a
 * small form that links it to a member by e-mail. A linked account's row goes, and focus moves to the next row's
 * field (the heading once none is left); `linked` lets the setup table count again.
 */
export function peopleToLinkPanel(organizationId: string, source: Source, linked: () => Promise<void>, close: () => void): PeopleToLink {
  const headingId = nextId('people');
  const heading = h('h4', { id: headingId, tabIndex: -1 }, `People to link from ${source.name}`);
  const alert = h('div', { class: 'alert', role: 'alert' });
  const said = h('p', { class: 'done', role: 'status' });
  const shown = h('p');
  const list = h('div');
  const of = { organization_id: organizationId, ...(source.kind === 'git_app' ? { git_app_id: source.id } : { app_id: source.id }) };
  let total = 0;

  async function fill(): Promise<void> {
    const unlinked = await call(api.settings.accounts.unlinked.query(of));
    total = unlinked.total;
    list.replaceChildren(accountTable(unlinked.accounts));
    count();
  }
  const load = () => attempt(alert, fill);

  function count(): void {
    const rows = list.querySelectorAll('tbody tr').length;
    shown.textContent =
      total === 0
        ? 'No account left to link.'
        : `${total} account${total === 1 ? '' : 's'} with activity and no member${rows < total ? `; the ${rows} busiest are shown` : ''}, busiest first. Linked, what arrives next under an account counts for its member.`;
  }

  function accountTable(accounts: readonly Account[]): HTMLElement {
    if (!accounts.length) return h('p', { class: 'empty' }, 'Every account with activity has its member.');
    return table(
      `People to link from ${source.name}`,
      ['Account', 'Activity', 'Last seen', 'Member'],
      accounts.map((a) => [h('code', {}, a.account), activityWords(a), when(a.last_seen_at), a.account_kind === 'email' ? emailNote() : linkForm(a)]),
    );
  }

  /** A commit author seen only by e-mail: no link takes an address; the member's e-mails must hold it. */
  const emailNote = () => h('small', {}, 'A commit author’s e-mail: add it to the member’s addresses in your identity provider; no link takes it.');

  function linkForm(account: Account): HTMLFormElement {
    const inputId = nextId('link-member');
    const form = h(
      'form',
      { class: 'link-account', noValidate: true },
      h('label', { for: inputId }, 'Member e-mail', hidden(` for ${account.account}`)),
      h('input', { type: 'email', id: inputId, name: 'user', maxLength: 320, required: true, autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Link', hidden(` ${account.account}`)),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      said.textContent = '';
      attempt(alert, async () => {
        const user = valueOf(form, 'user').trim();
        if (!user) throw new Error(`Give the e-mail of the member behind ${account.account}.`);
        const link = await call(api.settings.accounts.link.mutate({ ...of, account: account.account, user }));
        const row = form.closest('tr');
        const next = row?.nextElementSibling ?? row?.previousElementSibling;
        row?.remove();
        total -= 1;
        // The shown rows all linked: the next busiest, past the first page, are read.
        if (list.querySelector('tbody tr')) count();
        else await fill();
        said.textContent = `Linked ${link.account} to ${user}: what arrives next under it counts for them.`;
        (next?.querySelector('input') ?? list.querySelector('input') ?? heading).focus();
        await linked();
      });
    });
    return form;
  }

  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': headingId },
    heading,
    h('p', { class: 'actions' }, h('button', { type: 'button', onclick: close }, 'Close', hidden(' people to link'))),
    alert,
    said,
    shown,
    list,
  );
  return { element, heading, load };
}
