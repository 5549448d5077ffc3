import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { Child, h, hidden, table, when } from '../../../pages/script/elements';
import { partsOf, subsection } from './parts';
import { peopleToLinkPanel } from './peopleToLink';

type Organization = Outputs['settings']['session']['organizations'][number];
type Setup = Outputs['settings']['setup'];
type Source = Setup['sources'][number];

/** A state in words, never by colour alone. */
const STATE_WORDS: Record<Source['state'], string> = {
  waiting: 'Waiting for its first delivery',
  receiving: 'Receiving',
  failing: 'Failing',
};

const KIND_WORDS: Record<Source['kind'], string> = { git_app: 'git app', app: 'app', scim_token: 'SCIM token', otlp_token: 'OTLP token' };

function stateCell(source: Source): Child {
  const cls = source.state === 'failing' ? 'status status-disabled' : source.state === 'receiving' && !source.quiet ? 'status status-active' : 'status';
  return h(
    'span',
    {},
    h('span', { class: cls }, STATE_WORDS[source.state]),
    source.quiet ? h('span', { class: 'status' }, '; quiet: nothing for a day while other sources delivered') : null,
    source.active ? null : h('span', { class: 'status status-disabled' }, '; disabled'),
  );
}

function lastDelivery(source: Source): Child {
  if (!source.last_delivery) return 'None yet';
  return [when(source.last_delivery.at), ` (${source.last_delivery.event})`];
}

function lastRefusal(source: Source): Child {
  if (!source.last_refusal) return 'None';
  return [when(source.last_refusal.at), `: ${source.last_refusal.reason}`];
}

const OUTCOME_WORDS: Record<NonNullable<NonNullable<Source['history']>['last_import']>['outcome'], string> = {
  complete: 'complete',
  refused: 'credential refused',
  failed: 'stopped in part',
  stopped: 'stopped when asked; the next run goes on',
  running: 'reading now',
};

/** Its history from the provider's API: whether it can be read, and its last run with what it found the webhooks had missed. */
function historyCell(source: Source): Child {
  const { history } = source;
  if (!history) return '–';
  const run = history.last_import;
  if (!run) return history.credential ? 'Not read yet' : 'No credential';
  const found = `${run.read} read, ${run.found} the webhooks had missed`;
  return [when(run.finished_at ?? run.started_at), ` (${OUTCOME_WORDS[run.outcome]}): ${found}`, run.message ? h('br') : null, run.message ? h('small', {}, run.message) : null];
}

const counted = (n: number, what: string) => `${n} ${what}`;

/**
 * An organization's sources at a glance (docs/settings.md#setup): each git app, app, SCIM and OTLP token, its state
 * in words, its last delivery and last refusal with the reason, its accounts without a member, its history's last
 * import, and the next step.
 * Its one change is linking those accounts to members, busiest first; the sections below change the rest.
 */
export function setupSection(org: Organization): HTMLElement {
  const parts = partsOf(
    subsection(`${org.id}-setup`, 'Setup', 'Each source of the organization’s data: whether it receives, what it last received or refused and why, and what to do next.'),
  );
  const of = { organization_id: org.id };
  const summary = h('p', { class: 'setup-summary' });
  parts.list.before(summary);
  const people = h('div', { class: 'people-to-link' });
  parts.secretSlot.before(people);
  /** The source whose people to link are shown, so that its button says so when the table is drawn again. */
  let open: string | null = null;

  async function refresh(): Promise<void> {
    const setup = await call(api.settings.setup.query(of));
    const { counts } = setup;
    summary.textContent = `${counted(counts.receiving, 'receiving')}, ${counted(counts.waiting, 'waiting')}, ${counted(counts.failing, 'failing')}, ${counted(counts.quiet, 'quiet')}. Checked ${new Date(setup.checked_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}.`;
    parts.list.replaceChildren(sourceTable(setup.sources));
  }

  function sourceTable(sources: readonly Source[]): HTMLElement {
    if (!sources.length) return h('p', { class: 'empty' }, 'No sources yet: add a git app, an app, or a SCIM or OTLP token below.');
    return table(
      `Sources of ${org.name}`,
      ['Source', 'State', 'Last delivery', 'Last refusal', 'Accounts without a member', 'History', 'Next step'],
      sources.map((s) => [
        h('span', {}, h('strong', {}, s.name), h('br'), h('small', {}, `${s.provider_name} ${KIND_WORDS[s.kind]}`)),
        stateCell(s),
        lastDelivery(s),
        lastRefusal(s),
        unlinkedCell(s),
        historyCell(s),
        s.next_step ?? 'Nothing to do.',
      ]),
    );
  }

  /** The count, and where there are accounts to link, the button that lists them. */
  function unlinkedCell(source: Source): Child {
    if (source.unlinked_accounts === null) return '–';
    if (source.unlinked_accounts === 0) return '0';
    return h(
      'button',
      { type: 'button', 'aria-expanded': String(open === source.id), 'data-source': source.id, onclick: () => showPeople(source) },
      `People to link (${source.unlinked_accounts})`,
      hidden(` from ${source.name}`),
    );
  }

  async function showPeople(source: Source): Promise<void> {
    const panel = peopleToLinkPanel(org.id, source, refresh, () => {
      people.replaceChildren();
      open = null;
      const button = parts.list.querySelector<HTMLElement>(`[data-source="${source.id}"]`);
      button?.setAttribute('aria-expanded', 'false');
      (button ?? parts.heading).focus();
    });
    open = source.id;
    for (const b of parts.list.querySelectorAll('[data-source]')) b.setAttribute('aria-expanded', String(b.getAttribute('data-source') === source.id));
    people.replaceChildren(panel.element);
    await panel.load();
    panel.heading.focus();
  }

  const again = h('button', { type: 'button', onclick: () => attempt(parts.alert, refresh) }, 'Check again', hidden(` the setup of ${org.name}`));
  parts.section.append(h('p', {}, again));
  attempt(parts.alert, refresh);
  return parts.section;
}
