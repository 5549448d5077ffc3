import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { confirmingButton } from '../../../pages/script/confirm';
import { $, checkedValues, h, table, valueOf, when } from '../../../pages/script/elements';
import { rowAction } from './actions';
import { partsOf } from './parts';
import { clearSecret, showSecret } from './secrets';

type ApiToken = Outputs['settings']['apiTokens']['list'][number];
type Organization = Outputs['settings']['session']['organizations'][number];

/** The person's own API tokens: the section in the page's markup, with its form. */
const tokens = partsOf($('#api-tokens'));
let organizationNames = new Map<string, string>();

/** Fills the organizations a new token may be limited to, lists the tokens, and makes the form work. */
export async function showApiTokens(organizations: readonly Organization[]): Promise<void> {
  organizationNames = new Map(organizations.map((o) => [o.id, o.name]));
  const scope = $('#token-scope');
  $('.choices', scope).replaceChildren(
    ...organizations.map((o) => h('label', { class: 'choice' }, h('input', { type: 'checkbox', name: 'organization_ids', value: o.id }), ' ', o.name)),
  );
  scope.hidden = organizations.length === 0;
  await attempt(tokens.alert, refresh);
}

async function refresh(): Promise<void> {
  clearSecret(tokens);
  tokens.list.replaceChildren(tokenTable(await call(api.settings.apiTokens.list.query())));
}

function tokenTable(list: readonly ApiToken[]): HTMLElement {
  if (!list.length) return h('p', { class: 'empty' }, 'You have no API tokens yet.');
  return table(
    'Your API tokens',
    ['Name', 'Token', 'Status', 'Expires', 'Last used', 'Created', 'Actions'],
    list.map((token) => [
      [token.name, reach(token)],
      h('code', {}, token.preview),
      h('span', { class: `status status-${token.status}` }, token.status),
      when(token.expires_at, 'Never'),
      when(token.last_used_at, 'Not yet'),
      when(token.created_at),
      token.status === 'active' ? confirmingButton('Revoke', 'Confirm revoke', token.name, () => revoke(token)) : '',
    ]),
  );
}

/** The organizations and teams a token is limited to, if any. */
function reach(token: ApiToken): HTMLElement | null {
  const only = token.organizations.map((id) => organizationNames.get(id) || id);
  if (token.teams.length) only.push(`${token.teams.length} team${token.teams.length === 1 ? '' : 's'}`);
  return only.length ? h('span', { class: 'hint' }, `Only: ${only.join(', ')}`) : null;
}

function revoke(token: ApiToken): Promise<void> {
  return rowAction(tokens, async () => {
    await call(api.settings.apiTokens.revoke.mutate({ token_id: token.id }));
    await refresh();
    return `Revoked “${token.name}”. Requests with it are refused within a few seconds.`;
  });
}

const form = $<HTMLFormElement>('#token-form');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const expiry = valueOf(form, 'expires_in_days');
  const input = {
    name: valueOf(form, 'name'),
    expires_in_days: expiry === 'never' ? null : Number(expiry),
    organization_ids: checkedValues(form, 'organization_ids'),
  };
  tokens.done.textContent = '';
  attempt($('.alert', form), async () => {
    const created = await call(api.settings.apiTokens.create.mutate(input));
    form.reset();
    await refresh();
    const expires = created.expires_at ? ['It expires ', when(created.expires_at), '.'] : 'It does not expire.';
    showSecret(tokens, `Your new token “${input.name.trim()}”`, [{ label: 'New API token', text: created.token }], [h('span', {}, expires)]);
  });
});
