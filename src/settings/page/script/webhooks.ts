import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { checkboxes, checkedValues, field, h, hidden, nextId, table, valueOf, when } from '../../../pages/script/elements';
import { createForm, rowAction } from './actions';
import { partsOf, subsection } from './parts';
import { clearSecret, showSecret } from './secrets';

type Organization = Outputs['settings']['session']['organizations'][number];
type Endpoint = Outputs['settings']['webhooks']['list'][number];
type EventTypes = Outputs['settings']['webhooks']['eventTypes'];
type Attempt = Outputs['settings']['webhooks']['deliveries'][number];
interface Of {
  organization_id: string;
}

/** An organization's webhook endpoints: listed, added, disabled and enabled, their secrets rotated, their deliveries. */
export function webhooksSection(org: Organization, eventTypes: EventTypes): HTMLElement {
  const parts = partsOf(subsection(`${org.id}-webhooks`, 'Webhooks', 'Signed HTTP POSTs to your endpoints when something happens in the organization.'));
  const of = { organization_id: org.id };
  const deliveries = h('div', { class: 'deliveries' });
  parts.secretSlot.before(deliveries);

  async function refresh(): Promise<void> {
    clearSecret(parts);
    parts.list.replaceChildren(endpointTable(await call(api.settings.webhooks.list.query(of))));
  }

  function endpointTable(endpoints: readonly Endpoint[]): HTMLElement {
    if (!endpoints.length) return h('p', { class: 'empty' }, 'No webhook endpoints yet.');
    return table(
      `Webhook endpoints of ${org.name}`,
      ['URL', 'Events', 'State', 'Actions'],
      endpoints.map((endpoint) => [
        h('code', { class: 'url' }, endpoint.url),
        endpoint.events ? endpoint.events.join(', ') : 'All events',
        endpoint.is_active
          ? h('span', { class: 'status status-active' }, 'active')
          : [h('span', { class: 'status status-disabled' }, 'disabled'), h('span', { class: 'hint' }, endpoint.disabled_reason || '')],
        h(
          'span',
          { class: 'actions' },
          endpoint.is_active
            ? h('button', { type: 'button', onclick: () => disable(endpoint) }, 'Disable', hidden(` ${endpoint.url}`))
            : h('button', { type: 'button', onclick: () => enable(endpoint) }, 'Enable', hidden(` ${endpoint.url}`)),
          h('button', { type: 'button', onclick: () => rotate(endpoint) }, 'Rotate secret', hidden(` of ${endpoint.url}`)),
          h('button', { type: 'button', onclick: () => showDeliveries(endpoint) }, 'Deliveries', hidden(` to ${endpoint.url}`)),
        ),
      ]),
    );
  }

  function disable(endpoint: Endpoint): Promise<void> {
    return rowAction(parts, async () => {
      await call(api.settings.webhooks.disable.mutate({ ...of, endpoint_id: endpoint.id }));
      await refresh();
      return `Disabled ${endpoint.url}: no deliveries go to it until it is enabled.`;
    });
  }

  function enable(endpoint: Endpoint): Promise<void> {
    return rowAction(parts, async () => {
      const { resumed } = await call(api.settings.webhooks.enable.mutate({ ...of, endpoint_id: endpoint.id }));
      await refresh();
      return resumed ? `Enabled ${endpoint.url}; ${resumed} waiting deliveries go out now.` : `Enabled ${endpoint.url}.`;
    });
  }

  function rotate(endpoint: Endpoint): Promise<void> {
    return rowAction(parts, async () => {
      const rotated = await call(api.settings.webhooks.rotateSecret.mutate({ ...of, endpoint_id: endpoint.id }));
      await refresh();
      showSecret(parts, `New signing secret for ${endpoint.url}`, [{ label: 'Signing secret', text: rotated.secret }], [
        'Deliveries are signed with the previous secret too for 24 hours, while you update your receiver.',
      ]);
    });
  }

  async function showDeliveries(endpoint: Endpoint): Promise<void> {
    const panel = deliveriesPanel(of, endpoint, () => {
      deliveries.replaceChildren();
      parts.heading.focus();
    });
    deliveries.replaceChildren(panel.element);
    await panel.load();
    panel.heading.focus();
  }

  const form = createForm(
    'Add an endpoint',
    4,
    [
      field('Endpoint URL', h('input', { type: 'url', name: 'url', required: true, autocomplete: 'off', placeholder: 'https://' }), 'Where the webhooks are POSTed.'),
      checkboxes(
        'Events',
        'None checked: every event, including ones added later.',
        'events',
        eventTypes.map((type) => ({ value: type, label: type })),
      ),
    ],
    'Add endpoint',
    async (f) => {
      const checked = checkedValues(f, 'events');
      const events = eventTypes.filter((type) => checked.includes(type));
      const created = await call(api.settings.webhooks.create.mutate({ ...of, url: valueOf(f, 'url').trim(), events: events.length ? events : null }));
      await refresh();
      showSecret(parts, `Signing secret for ${created.endpoint.url}`, [{ label: 'Signing secret', text: created.secret }], [
        'Verify each delivery’s webhook-signature with it (the Standard Webhooks scheme).',
      ]);
    },
  );
  parts.section.append(form);
  attempt(parts.alert, refresh);
  return parts.section;
}

/** An endpoint's latest attempts, newest first, each with a Replay button; refreshed on demand, not by a timer. */
function deliveriesPanel(of: Of, endpoint: Endpoint, close: () => void): { element: HTMLElement; heading: HTMLElement; load: () => Promise<void> } {
  const headingId = nextId('deliveries');
  const alert = h('div', { class: 'alert', role: 'alert' });
  const said = h('p', { class: 'done', role: 'status' });
  const rows = h('div');
  const heading = h('h4', { id: headingId, tabIndex: -1 }, 'Deliveries to ', h('code', { class: 'url' }, endpoint.url));
  const fill = async () => rows.replaceChildren(deliveryTable(await call(api.settings.webhooks.deliveries.query({ ...of, endpoint_id: endpoint.id }))));
  const load = () => attempt(alert, fill);

  function replay(row: Attempt): Promise<void> {
    return attempt(alert, async () => {
      said.textContent = '';
      await call(api.settings.webhooks.replay.mutate({ ...of, delivery_id: row.delivery_id }));
      await fill();
      said.textContent = `Replay of the ${row.event_type} event queued: it goes out again with the same webhook-id. Refresh to see it.`;
      if (!document.activeElement || document.activeElement === document.body) heading.focus();
    });
  }

  function deliveryTable(attempts: readonly Attempt[]): HTMLElement {
    if (!attempts.length) return h('p', { class: 'empty' }, 'No deliveries yet.');
    return table(
      `Deliveries to ${endpoint.url}`,
      ['Attempted', 'Event', 'Result', 'Duration', 'Delivery', 'Actions'],
      attempts.map((a) => [
        when(a.attempted_at),
        a.event_type || '',
        a.status_code ? `HTTP ${a.status_code}` : a.error || '',
        `${a.duration_ms} ms`,
        a.delivery_status || '',
        h('button', { type: 'button', onclick: () => replay(a) }, 'Replay', hidden(` ${a.event_type} of ${new Date(a.attempted_at).toLocaleString()}`)),
      ]),
    );
  }

  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': headingId },
    heading,
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'button', onclick: load }, 'Refresh', hidden(' deliveries')),
      h('button', { type: 'button', onclick: close }, 'Close', hidden(' deliveries')),
    ),
    alert,
    said,
    rows,
  );
  return { element, heading, load };
}
