import { attempt } from '../../../pages/script/attempt';
import { api, call, Inputs, Outputs } from '../../../pages/script/api';
import { field, h, hidden, nextId, table, valueOf } from '../../../pages/script/elements';
import { confirmingButton } from '../../../pages/script/confirm';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';
import { Catalog, chosenProvider, listed, providerChoice, providerName } from './providers';
import { clearSecret, showSecret, webhookSecretState } from './secrets';

type Organization = Outputs['settings']['session']['organizations'][number];
type App = Outputs['settings']['apps']['list'][number];
type Team = Outputs['settings']['apps']['teams'][number];
type Repository = Outputs['settings']['apps']['repositories'][number];
type Mappings = Outputs['settings']['apps']['mappings'];
type Category = Inputs['settings']['apps']['mapStatus']['category'];
interface Of {
  organization_id: string;
}

const CATEGORIES: Record<Category, string> = { backlog: 'Backlog', active: 'Active', paused: 'Paused', done: 'Done', canceled: 'Canceled' };
const CATEGORY_IDS: readonly Category[] = ['backlog', 'active', 'paused', 'done', 'canceled'];

function categoryOf(value: string): Category {
  const category = CATEGORY_IDS.find((c) => c === value);
  if (!category) throw new Error(`Choose what the status counts as: ${Object.values(CATEGORIES).join(', ')}.`);
  return category;
}

/** An AI vendor's app's last pull: when, and what it did; a dash for an app the service does not read. */
function lastPull(app: App): HTMLElement | string {
  if (!app.vendor) return '–';
  const { held } = app.vendor;
  const when = app.vendor.pulled_at ? app.vendor.pulled_at.replace('T', ' ').slice(0, 16) + ' UTC' : 'Never';
  return h(
    'span',
    { class: app.vendor.failing ? 'status status-disabled' : '' },
    app.vendor.failing ? `${when}: failing` : when,
    app.vendor.pull_result ? h('small', {}, ` ${app.vendor.pull_result}`) : null,
    held.days ? h('small', {}, ` ${held.days} day${held.days === 1 ? '' : 's'} held, ${held.first} to ${held.last}.`) : null,
  );
}

/** A field's value, or undefined when left empty or not offered (the service's default then applies). */
function optionalValue(form: HTMLFormElement, name: string): string | undefined {
  if (!form.elements.namedItem(name)) return undefined;
  const value = valueOf(form, name).trim();
  return value === '' ? undefined : value;
}

/** Incident tools and deployment sources: their boards (services, teams, names) are mapped to repositories. */
const mapsToRepositories = (app: App): boolean => app.category === 'incidents' || app.category === 'deployments';

/** A field's hint for the providers it is for: “A and B only…”; null when no provider takes the field. */
function onlyFor(providers: Catalog, hint: string): string | null {
  return providers.length ? `${listed(providers.map((p) => p.name), 'and')} only${hint}` : null;
}

/**
 * An organization's apps: listed, added with their webhook URL and secret shown once, disabled and enabled, secrets
 * rotated; each app's boards mapped to teams (trackers, chat) or repositories (incident tools, deployment
 * sources), a tracker's status names counted in another category, its accounts linked. `catalog`: the providers the
 * service connects to.
 */
export function appsSection(org: Organization, catalog: Catalog): HTMLElement {
  const choices = catalog.filter((p) => p.connection === 'app');
  const nameOf = (id: string) => providerName(catalog, id);
  // The service reads an app of a provider that sends nothing (an AI vendor's), with the credential it issued.
  const credentialHint = onlyFor(choices.filter((p) => !p.pushes), ', and required there: the key or token the vendor issued (docs/ai-vendors.md). Never shown again.');
  const githubAccountHint = onlyFor(choices.filter((p) => p.reads_github_account), ': the organization whose usage reports are read (an enterprise: npm run apps).');
  const pointsFieldHint = onlyFor(choices.filter((p) => p.names_points_field), ': the issue field that holds story points.');
  const parts = partsOf(
    subsection(`${org.id}-apps`, 'Apps', 'Trackers, chat, incident tools and deployment scripts that send the organization’s work in, and AI vendors.'),
  );
  const of = { organization_id: org.id };
  const mappings = h('div', { class: 'mappings' });
  parts.secretSlot.before(mappings);

  async function refresh(): Promise<void> {
    clearSecret(parts);
    parts.list.replaceChildren(appTable(await call(api.settings.apps.list.query(of))));
  }

  function appTable(apps: readonly App[]): HTMLElement {
    if (!apps.length) return h('p', { class: 'empty' }, 'No apps yet.');
    return table(
      `Apps of ${org.name}`,
      ['Name', 'Provider', 'Webhook URL', 'Secret', 'State', 'Last pull', 'Actions'],
      apps.map((app) => [
        app.name,
        nameOf(app.provider),
        app.webhook_url ? h('code', { class: 'url' }, app.webhook_url) : 'None',
        webhookSecretState(app.has_secret, app.previous_secret_accepted_until),
        h('span', { class: `status status-${app.is_active ? 'active' : 'disabled'}` }, app.is_active ? 'active' : 'disabled'),
        lastPull(app),
        h(
          'span',
          { class: 'actions' },
          app.is_active
            ? h('button', { type: 'button', onclick: () => setActive(app, false) }, 'Disable', hidden(` ${app.name}`))
            : h('button', { type: 'button', onclick: () => setActive(app, true) }, 'Enable', hidden(` ${app.name}`)),
          app.webhook_url ? h('button', { type: 'button', onclick: () => rotate(app) }, 'Rotate secret', hidden(` of ${app.name}`)) : null,
          app.previous_secret_accepted_until ? confirmingButton('Refuse previous secret', 'Confirm refuse previous secret', `of ${app.name}`, () => endGrace(app)) : null,
          app.webhook_url ? h('button', { type: 'button', onclick: () => showProviderSecret(app) }, 'Use the provider’s secret', hidden(` for ${app.name}`)) : null,
          app.vendor ? h('button', { type: 'button', onclick: () => showProviderSecret(app) }, 'Replace credential', hidden(` of ${app.name}`)) : null,
          app.vendor ? null : h('button', { type: 'button', onclick: () => showMappings(app) }, 'Mappings', hidden(` of ${app.name}`)),
        ),
      ]),
    );
  }

  function setActive(app: App, active: boolean): Promise<void> {
    return rowAction(parts, async () => {
      const input = { ...of, app_id: app.id };
      await call(active ? api.settings.apps.enable.mutate(input) : api.settings.apps.disable.mutate(input));
      await refresh();
      return active ? `Enabled ${app.name}: its deliveries are accepted.` : `Disabled ${app.name}: its deliveries are refused until it is enabled; what it brought stays.`;
    });
  }

  function rotate(app: App): Promise<void> {
    return rowAction(parts, async () => {
      const rotated = await call(api.settings.apps.rotateSecret.mutate({ ...of, app_id: app.id }));
      await refresh();
      showSecret(parts, `New webhook secret for ${app.name}`, [{ label: 'Webhook secret', text: rotated.secret }], [
        `Put it where ${nameOf(app.provider)} takes it. The previous secret is accepted for 24 hours; if it leaked, “Refuse previous secret” ends that at once.`,
      ]);
    });
  }

  /** For a secret that leaked: the one a rotation replaced is refused now, not at the end of its 24 hours. */
  function endGrace(app: App): Promise<void> {
    return rowAction(parts, async () => {
      const { ended } = await call(api.settings.apps.endSecretGrace.mutate({ ...of, app_id: app.id }));
      await refresh();
      return ended ? `The previous secret of ${app.name} is refused from now on: only the current one is accepted.` : `${app.name} has no previous secret still accepted.`;
    });
  }

  /**
   * Some providers sign with a secret they make and show once: it is stored in place of ours. An AI vendor's app
   * takes a new credential the same way, when the vendor's key expired or was revoked.
   */
  function showProviderSecret(app: App): void {
    const vendor = app.vendor !== null;
    const form = createForm(
      vendor ? `New credential for ${app.name}` : `Secret ${nameOf(app.provider)} made for ${app.name}`,
      4,
      [
        field(
          vendor ? 'New credential' : 'Provider’s secret',
          h('input', { type: 'password', name: 'secret', maxLength: 1000, required: true, autocomplete: 'off' }),
          vendor
            ? `The key or token ${nameOf(app.provider)} issued (docs/ai-vendors.md says which). The next pull uses it.`
            : `As ${nameOf(app.provider)} shows it in the webhook’s settings. The secret it replaces is accepted for 24 hours.`,
        ),
      ],
      vendor ? 'Store credential' : 'Store secret',
      async (f) => {
        await call(api.settings.apps.setSecret.mutate({ ...of, app_id: app.id, secret: valueOf(f, 'secret').trim() }));
        mappings.replaceChildren();
        await refresh();
        parts.done.textContent = vendor
          ? `Stored the new credential of ${app.name}, sealed: the next pull uses it.`
          : `Stored the secret ${nameOf(app.provider)} made for ${app.name}: its deliveries are verified with it from now on.`;
        parts.heading.focus();
      },
    );
    form.append(h('p', { class: 'actions' }, h('button', { type: 'button', onclick: () => mappings.replaceChildren() }, 'Cancel', hidden(vendor ? ' storing a credential' : ' storing a secret'))));
    mappings.replaceChildren(form);
    form.querySelector('input')?.focus();
  }

  async function showMappings(app: App): Promise<void> {
    const panel = mappingsPanel(of, app, nameOf(app.provider), () => {
      mappings.replaceChildren();
      parts.heading.focus();
    });
    mappings.replaceChildren(panel.element);
    await panel.load();
    panel.heading.focus();
  }

  const form = createForm(
    'Add an app',
    4,
    [
      field('Provider', providerChoice(choices)),
      field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, autocomplete: 'off' }), 'Left empty: the provider’s name.'),
      // A field no offered provider takes is left out.
      credentialHint && field('Vendor credential', h('input', { type: 'password', name: 'credential', maxLength: 1000, autocomplete: 'off' }), credentialHint),
      githubAccountHint && field('GitHub organization', h('input', { type: 'text', name: 'github_org', maxLength: 39, autocomplete: 'off' }), githubAccountHint),
      pointsFieldHint &&
        field('Story points field', h('input', { type: 'text', name: 'points_field', maxLength: 100, autocomplete: 'off', placeholder: 'customfield_10016' }), pointsFieldHint),
    ],
    'Add app',
    async (f) => {
      const created = await call(
        api.settings.apps.create.mutate({
          ...of,
          provider: chosenProvider(choices, valueOf(f, 'provider')).id,
          name: optionalValue(f, 'name'),
          points_field: optionalValue(f, 'points_field'),
          credential: optionalValue(f, 'credential'),
          github_org: optionalValue(f, 'github_org'),
        }),
      );
      await refresh();
      const { app, secret } = created;
      if (!app.webhook_url || !secret) {
        parts.done.textContent = `Added ${app.name}: the service reads ${nameOf(app.provider)}’s usage with the credential, stored sealed and never shown again. The worker pulls each day.`;
        return;
      }
      const provider = catalog.find((p) => p.id === app.provider);
      const notes = [`In ${nameOf(app.provider)}: ${provider?.setup ?? 'send the webhooks to this URL with this secret.'}`];
      // A provider whose deliveries name what they carry in the path: a URL for each.
      const resources = provider?.resources ?? [];
      if (resources.length) notes.push(`POST ${listed(resources.map((r) => `${r} to ${app.webhook_url}/${r}`), 'and')}.`);
      showSecret(
        parts,
        `App “${app.name}”`,
        [
          { label: 'Webhook URL', text: app.webhook_url },
          { label: 'Webhook secret', text: secret },
        ],
        notes,
      );
    },
  );
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}

/**
 * An app's boards, status overrides and linked accounts, each changed by a small form; refreshed after each change. A
 * tracker's boards go to teams; an incident tool's and a deployment source's to repositories, with no statuses or accounts.
 */
function mappingsPanel(of: Of, app: App, providerName: string, close: () => void): { element: HTMLElement; heading: HTMLElement; load: () => Promise<void> } {
  const headingId = nextId('mappings');
  const alert = h('div', { class: 'alert', role: 'alert' });
  const said = h('p', { class: 'done', role: 'status' });
  const boards = h('div');
  const statuses = h('div');
  const toRepositories = mapsToRepositories(app);
  const targetChoice = h('select', { name: 'target' });
  const heading = h('h4', { id: headingId, tabIndex: -1 }, `Mappings of ${app.name}`);
  const ofApp = { ...of, app_id: app.id };
  let teams: readonly Team[] = [];
  let repositories: readonly Repository[] = [];

  // A new organization may have neither yet: the list says why it is empty, and mapping says what to do first.
  const nothingToMapTo = toRepositories
    ? 'No repository yet: connect a git app (Git apps) and let it deliver a push'
    : 'No team yet: make one under Teams (or have your identity provider push its groups)';

  async function fill(): Promise<Mappings> {
    const [current] = await Promise.all([
      call(api.settings.apps.mappings.query(ofApp)),
      toRepositories ? call(api.settings.apps.repositories.query(of)).then((r) => void (repositories = r)) : call(api.settings.apps.teams.query(of)).then((t) => void (teams = t)),
    ]);
    const choices = toRepositories ? repositories.map((r) => h('option', { value: r.id }, r.full_name)) : teams.map((t) => h('option', { value: t.id }, t.name));
    targetChoice.replaceChildren(...(choices.length ? choices : [h('option', { value: '' }, nothingToMapTo)]));
    show(current);
    return current;
  }
  const load = () => attempt(alert, fill);

  const teamName = (id: string) => teams.find((t) => t.id === id)?.name ?? id;
  const repositoryName = (id: string) => repositories.find((r) => r.id === id)?.full_name ?? id;

  function show(current: Mappings): void {
    boards.replaceChildren(
      current.boards.length
        ? table(
            `Boards of ${app.name}`,
            ['Board', 'Mapped to', 'Actions'],
            current.boards.map((b) => [
              h('code', {}, b.board),
              b.team_id ? `Team ${teamName(b.team_id)}` : `Repository ${repositoryName(b.repository_id ?? '')}`,
              b.repository_id
                ? h('button', { type: 'button', onclick: () => unmap(b.board, b.repository_id ?? undefined) }, 'Unmap', hidden(` ${b.board} from ${repositoryName(b.repository_id)}`))
                : h('button', { type: 'button', onclick: () => unmap(b.board) }, 'Unmap', hidden(` ${b.board}`)),
            ]),
          )
        : h('p', { class: 'empty' }, 'No boards mapped: what arrives counts for the organization only.'),
    );
    if (toRepositories) return;
    statuses.replaceChildren(
      current.statuses.length
        ? table(
            `Status overrides of ${app.name}`,
            ['Status', 'Counted as'],
            current.statuses.map((s) => [s.status, CATEGORIES[s.category]]),
          )
        : h('p', { class: 'empty' }, 'No status overrides: statuses count as the provider says.'),
    );
  }

  /**
   * A board from its team, or from one of its repositories (an incident tool's may have several): the lists read
   * again, and the outcome said from them (which repositories its incidents still count for).
   */
  function unmap(board: string, repositoryId?: string): Promise<void> {
    said.textContent = '';
    return attempt(alert, async () => {
      await call(api.settings.apps.unmap.mutate({ ...ofApp, board, ...(repositoryId ? { repository_id: repositoryId } : {}) }));
      const after = await fill();
      const left = repositoryId ? after.boards.filter((b) => b.board === board) : [];
      said.textContent = left.length
        ? `Unmapped ${board} from ${repositoryName(repositoryId ?? '')}: its incidents count for ${left.map((b) => repositoryName(b.repository_id ?? '')).join(', ')}.`
        : `Unmapped ${board}: its ${toRepositories ? 'incidents and deployments' : 'tasks'} count for the organization only.`;
    }).then(() => {
      if (!document.activeElement || document.activeElement === document.body) heading.focus();
    });
  }

  const mapForm = createForm(
    'Map a board',
    5,
    [
      field(
        'Board',
        h('input', { type: 'text', name: 'board', maxLength: 200, required: true, autocomplete: 'off' }),
        `As ${providerName} names it: ${toRepositories ? 'a service id, a team or tag, the repository name a CI job sends…' : 'a project or team key, an owner/repo…'}`,
      ),
      field(toRepositories ? 'Repository' : 'Team', targetChoice),
    ],
    'Map board',
    async (f) => {
      const board = valueOf(f, 'board').trim();
      const target = valueOf(f, 'target');
      if (target === '') throw new Error(`${nothingToMapTo}, then map the board.`);
      const mapped = await call(api.settings.apps.map.mutate(toRepositories ? { ...ofApp, board, repository_id: target } : { ...ofApp, board, team_id: target }));
      await fill();
      const where = mapped.team_id ? teamName(mapped.team_id) : repositoryName(mapped.repository_id ?? '');
      said.textContent = `Mapped ${mapped.board} to ${where}; what it brought is placed there now.`;
    },
  );

  const statusForm = createForm(
    'Count a status as',
    5,
    [
      field('Status', h('input', { type: 'text', name: 'status', maxLength: 200, required: true, autocomplete: 'off' }), 'As the tracker names it, e.g. “Blocked”.'),
      field('Counted as', h('select', { name: 'category' }, CATEGORY_IDS.map((c) => h('option', { value: c }, CATEGORIES[c])))),
    ],
    'Map status',
    async (f) => {
      const mapped = await call(api.settings.apps.mapStatus.mutate({ ...ofApp, status: valueOf(f, 'status'), category: categoryOf(valueOf(f, 'category')) }));
      await fill();
      said.textContent = `“${mapped.status}” now counts as ${CATEGORIES[mapped.category].toLowerCase()}; ${mapped.tasks} task${mapped.tasks === 1 ? '' : 's'} derived again.`;
    },
  );

  const linkForm = createForm(
    'Link a member’s account',
    5,
    [
      field('Member', h('input', { type: 'text', name: 'user', maxLength: 320, required: true, autocomplete: 'off' }), 'Their e-mail or user id.'),
      field('Account id', h('input', { type: 'text', name: 'external_id', maxLength: 200, required: true, autocomplete: 'off' }), `Their user id on ${app.name}.`),
    ],
    'Link account',
    async (f) => {
      const link = await call(api.settings.apps.linkUser.mutate({ ...ofApp, user: valueOf(f, 'user'), external_id: valueOf(f, 'external_id') }));
      said.textContent = `Linked ${link.external_user_id} to ${link.user_id}.`;
    },
  );

  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': headingId },
    heading,
    h('p', { class: 'actions' }, h('button', { type: 'button', onclick: close }, 'Close', hidden(' mappings'))),
    alert,
    said,
    boards,
    ...(toRepositories ? [mapForm] : [statuses, mapForm, statusForm, linkForm]),
  );
  return { element, heading, load };
}
