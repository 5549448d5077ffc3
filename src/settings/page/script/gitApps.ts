import { attempt } from '../../../pages/script/attempt';
import { api, call, Inputs, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';
import { confirmingButton } from '../../../pages/script/confirm';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';
import { clearSecret, showSecret, webhookSecretState } from './secrets';

type Organization = Outputs['settings']['session']['organizations'][number];
type GitApp = Outputs['settings']['gitApps']['list'][number];
/** The providers a git app may be added for here. */
type Provider = Inputs['settings']['gitApps']['create']['provider'];

const PROVIDERS: Record<Provider, string> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket Cloud' };
const PROVIDER_IDS: readonly Provider[] = ['github', 'gitlab', 'bitbucket'];

/** The provider's name as people know it; a provider of an app made elsewhere (the CLIs) by its id. */
function providerName(provider: string): string {
  const known = PROVIDER_IDS.find((p) => p === provider);
  return known ? PROVIDERS[known] : provider;
}

/** The provider chosen in the form, one of those it offers. */
function providerOf(value: string): Provider {
  const provider = PROVIDER_IDS.find((p) => p === value);
  if (!provider) throw new Error(`Choose a provider: ${Object.values(PROVIDERS).join(', ')}.`);
  return provider;
}

/**
 * An organization's git apps: listed, added with their webhook URL and secret shown once, secrets rotated (the one
 * replaced refused at once when it leaked).
 */
export function gitAppsSection(org: Organization): HTMLElement {
  const parts = partsOf(subsection(`${org.id}-git-apps`, 'Git apps', 'Connections that receive GitHub’s, GitLab’s or Bitbucket’s webhooks for your repositories.'));
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
        providerName(app.provider),
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
        `Paste it into ${providerName(app.provider)}’s webhook settings. The previous secret is accepted for 24 hours; if it leaked, “Refuse previous secret” ends that at once.`,
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
      field('Provider', h('select', { name: 'provider' }, PROVIDER_IDS.map((p) => h('option', { value: p }, PROVIDERS[p])))),
      field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' })),
    ],
    'Add git app',
    async (f) => {
      const created = await call(api.settings.gitApps.create.mutate({ ...of, provider: providerOf(valueOf(f, 'provider')), name: valueOf(f, 'name') }));
      await refresh();
      showSecret(
        parts,
        `Git app “${created.git_app.name}”`,
        [
          { label: 'Webhook URL', text: created.git_app.webhook_url ?? '' },
          { label: 'Webhook secret', text: created.secret },
        ],
        [`In ${providerName(created.git_app.provider)}’s webhook settings, use this URL and secret. ${created.provider_settings}.`],
      );
    },
  );
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}
