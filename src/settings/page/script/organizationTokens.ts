import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { confirmingButton } from '../../../pages/script/confirm';
import { field, h, table, valueOf, when } from '../../../pages/script/elements';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';
import { clearSecret, SecretValue, showSecret } from './secrets';

type Organization = Outputs['settings']['session']['organizations'][number];
type OrganizationToken = Outputs['settings']['scimTokens']['list'][number];
interface Of {
  organization_id: string;
}

/** A kind of organization token: its procedures, its words, and what is shown once when one is made. */
interface TokenKind<Created> {
  slug: string;
  procedures: {
    list: { query(input: Of): Promise<OrganizationToken[]> };
    create: { mutate(input: Of & { name: string }): Promise<Created> };
    revoke: { mutate(input: Of & { token_id: string }): Promise<unknown> };
  };
  title: string;
  intro: string;
  noun: string;
  aNoun: string;
  revealed(created: Created): { values: SecretValue[]; notes: string[] };
}

export const SCIM: TokenKind<Outputs['settings']['scimTokens']['create']> = {
  slug: 'scim',
  procedures: api.settings.scimTokens,
  title: 'SCIM tokens',
  intro: 'For your identity provider, to provision people and groups at /scim/v2.',
  noun: 'SCIM token',
  aNoun: 'a SCIM token',
  revealed: (created) => ({
    values: [
      { label: 'SCIM token', text: created.token },
      { label: 'SCIM base URL', text: created.scim_base_url },
    ],
    notes: ['Give both to your identity provider’s SCIM provisioning settings.'],
  }),
};

export const TELEMETRY: TokenKind<Outputs['settings']['otlpTokens']['create']> = {
  slug: 'telemetry',
  procedures: api.settings.otlpTokens,
  title: 'Telemetry (OTLP tokens)',
  intro: 'For Claude Code to send its usage metrics and events to /otlp.',
  noun: 'OTLP token',
  aNoun: 'an OTLP token',
  revealed: (created) => ({
    values: [
      { label: 'OTLP token', text: created.token },
      { label: 'Managed settings', text: JSON.stringify(created.managed_settings, null, 2), block: true },
    ],
    notes: ['Put the managed settings in Claude Code’s managed-settings.json on your developers’ machines.'],
  }),
};

/** An organization's tokens of one kind: listed, revoked, and made with their values shown once. */
export function organizationTokensSection<Created>(org: Organization, kind: TokenKind<Created>): HTMLElement {
  const parts = partsOf(subsection(`${org.id}-${kind.slug}`, kind.title, kind.intro));
  const of = { organization_id: org.id };

  async function refresh(): Promise<void> {
    clearSecret(parts);
    const list = await call(kind.procedures.list.query(of));
    parts.list.replaceChildren(
      list.length
        ? table(
            `${kind.title} of ${org.name}`,
            ['Name', 'Token', 'Status', 'Last used', 'Created', 'Actions'],
            list.map((token) => [
              token.name,
              h('code', {}, token.preview),
              h('span', { class: `status status-${token.status}` }, token.status),
              when(token.last_used_at, 'Not yet'),
              when(token.created_at),
              token.status === 'active' ? confirmingButton('Revoke', 'Confirm revoke', token.name, () => revoke(token)) : '',
            ]),
          )
        : h('p', { class: 'empty' }, `No ${kind.noun}s yet.`),
    );
  }

  function revoke(token: OrganizationToken): Promise<void> {
    return rowAction(parts, async () => {
      await call(kind.procedures.revoke.mutate({ ...of, token_id: token.id }));
      await refresh();
      return `Revoked “${token.name}”.`;
    });
  }

  const form = createForm(
    `Create ${kind.aNoun}`,
    4,
    [field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' }))],
    `Create ${kind.noun}`,
    async (f) => {
      const name = valueOf(f, 'name');
      const created = await call(kind.procedures.create.mutate({ ...of, name }));
      await refresh();
      const shown = kind.revealed(created);
      showSecret(parts, `Your new ${kind.noun} “${name.trim()}”`, shown.values, shown.notes);
    },
  );
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}
