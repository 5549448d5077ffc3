import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';
import { confirmingButton } from '../../../pages/script/confirm';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';
import { Catalog, chosenProvider, listed, providerChoice, providerName } from './providers';
import { clearSecret, showSecret, webhookSecretState } from './secrets';

type Organization = Outputs['settings']['session']['organizations'][number];
type GitApp = Outputs['settings']['gitApps']['list'][number];

/**
 * An organization's git apps: listed, added with their webhook URL and secret shown once, secrets rotated (the one
 * replaced refused at once when it leaked). `catalog`: the providers the service connects to.
 */
export function gitAppsSection(org: Organization, catalog: Catalog): HTMLElement {
  const choices = catalog.filter((p) => p.connection === 'git_app');
  const nameOf = (id: string) => providerName(catalog, id);
  const parts = partsOf(subsection(`${org.id}-git-apps`, 'Git apps', `Connections that receive ${listed(choices.map((p) => `${p.name}’s`), 'or')} webhooks for your repositories.`));
  const of = { organization_id: org.id };

  async function refresh(): Promise<void> {
    clearSecret(parts);
    parts.list.replaceChildren(gitAppTable(await call(api.settings.gitApps.list.query(of))));
  }

  function gitAppTable(apps: readonly GitApp[]): HTMLElement {
    if (!apps.length) return h('p', { class: 'empty' }, 'No git apps yet.');
    return table(
      `Git apps of ${org.name}`,
      ['Name', 'Provider', 'Webhook URL', 'Secret', 'Actions'],
      apps.map((app) => [
        app.name,
        nameOf(app.provider),
        app.webhook_url ? h('code', { class: 'url' }, app.webhook_url) : 'None',
        webhookSecretState(app.has_secret, app.previous_secret_accepted_until),
        h(
          'span',
          { class: 'actions' },
          app.webhook_url ? h('button', { type: 'button', onclick: () => rotate(app) }, 'Rotate secret', hidden(` of ${app.name}`)) : null,
          app.previous_secret_accepted_until ? confirmingButton('Refuse previous secret', 'Confirm refuse previous secret', `of ${app.name}`, () => endGrace(app)) : null,
        ),
      ]),
    );
  }

  function rotate(app: GitApp): Promise<void> {
    return rowAction(parts, async () => {
      const rotated = await call(api.settings.gitApps.rotateSecret.mutate({ ...of, git_app_id: app.id }));
      await refresh();
      showSecret(parts, `New webhook secret for ${app.name}`, [{ label: 'Webhook secret', text: rotated.secret }], [
        `Paste it into ${nameOf(app.provider)}’s webhook settings. The previous secret is accepted for 24 hours; if it leaked, “Refuse previous secret” ends that at once.`,
      ]);
    });
  }

  /** For a secret that leaked: the one a rotation replaced is refused now, not at the end of its 24 hours. */
  function endGrace(app: GitApp): Promise<void> {
    return rowAction(parts, async () => {
      const { ended } = await call(api.settings.gitApps.endSecretGrace.mutate({ ...of, git_app_id: app.id }));
      await refresh();
      return ended ? `The previous secret of ${app.name} is refused from now on: only the current one is accepted.` : `${app.name} has no previous secret still accepted.`;
    });
  }

  const form = createForm(
    'Add a git app',
    4,
    [
      field('Provider', providerChoice(choices)),
      field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' })),
    ],
    'Add git app',
    async (f) => {
      const created = await call(api.settings.gitApps.create.mutate({ ...of, provider: chosenProvider(choices, valueOf(f, 'provider')).id, name: valueOf(f, 'name') }));
      await refresh();
      showSecret(
        parts,
        `Git app “${created.git_app.name}”`,
        [
          { label: 'Webhook URL', text: created.git_app.webhook_url ?? '' },
          { label: 'Webhook secret', text: created.secret },
        ],
        [`In ${nameOf(created.git_app.provider)}’s webhook settings, use this URL and secret.${created.provider_settings ? ` ${created.provider_settings}.` : ''}`],
      );
    },
  );
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}
