// The settings page (DESIGN §17). A plain script, no build step: it speaks tRPC over HTTP to settings.* only, with
// the session cookie, and the session's CSRF token on every change. Secrets live in the page only while shown.
(function () {
  'use strict';

  /** From settings.session; every mutation sends it in the X-CSRF-Token header. */
  let csrfToken = '';
  let signedIn = false;

  // ---------------------------------------------------------------- elements

  /**
   * An element with properties, attributes and children. Text always goes in as text nodes, never as markup.
   * Keys with a dash (aria-*, data-*), `role` and `for` are attributes; `on…` keys are listeners; the rest are
   * properties.
   */
  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.keys(props || {}).forEach((key) => {
      const value = props[key];
      if (value === undefined || value === null) return;
      if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (key === 'class') node.className = value;
      else if (key.includes('-') || key === 'role' || key === 'for') {
        if (value !== false) node.setAttribute(key, value === true ? '' : String(value));
      }
      else node[key] = value;
    });
    children.flat(Infinity).forEach((child) => {
      if (child === undefined || child === null || child === false || child === '') return;
      node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  const hidden = (text) => h('span', { class: 'visually-hidden' }, text);
  const $ = (selector, root) => (root || document).querySelector(selector);

  let idCounter = 0;
  const nextId = (prefix) => `${prefix}-${++idCounter}`;

  function when(iso, none) {
    if (!iso) return none;
    const date = new Date(iso);
    return h('time', { dateTime: iso, title: iso }, date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
  }

  /** A table whose cells carry their column's name, which the narrow layout shows beside each value. */
  function table(caption, columns, rows) {
    return h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { 'data-label': columns[i] }, cell))))),
    );
  }

  function field(label, control, hint) {
    control.id = control.id || nextId('field');
    let hintNode = null;
    if (hint) {
      hintNode = h('span', { class: 'hint', id: `${control.id}-hint` }, hint);
      control.setAttribute('aria-describedby', hintNode.id);
    }
    return h('p', { class: 'field' }, h('label', { for: control.id }, label), control, hintNode);
  }

  function checkboxes(legend, hint, name, choices) {
    return h(
      'fieldset',
      {},
      h('legend', {}, legend),
      hint ? h('p', { class: 'hint' }, hint) : null,
      h('div', { class: 'choices' }, choices.map((c) => h('label', { class: 'choice' }, h('input', { type: 'checkbox', name, value: c.value }), ' ', c.label))),
    );
  }

  const checkedValues = (form, name) => Array.from(form.querySelectorAll(`input[name="${name}"]:checked`), (input) => input.value);

  // ---------------------------------------------------------------- calls

  class ApiError extends Error {
    constructor(message, status) {
      super(message);
      this.status = status;
    }
  }

  async function call(url, init) {
    let res;
    try {
      res = await fetch(url, Object.assign({ credentials: 'same-origin' }, init));
    } catch (err) {
      throw new ApiError('The service could not be reached. Check the connection and try again.', 0);
    }
    const body = await res.json().catch(() => null);
    if (res.ok && body && body.result) return body.result.data;
    const message = body && body.error && body.error.message ? body.error.message : `The service answered ${res.status}. Try again.`;
    if (res.status === 401) showSignedOut(message);
    throw new ApiError(message, res.status);
  }

  function query(path, input) {
    const search = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return call(`/trpc/${path}${search}`, { headers: { Accept: 'application/json' } });
  }

  function mutate(path, input) {
    return call(`/trpc/${path}`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken },
      body: JSON.stringify(input),
    });
  }

  /**
   * Runs `work` for something the person did, its failure said in `alert` (a 401 has shown the signed-out view
   * instead). A second press while the first is under way does nothing.
   */
  async function attempt(alert, work) {
    if (alert.busy) return;
    alert.busy = true;
    alert.textContent = '';
    try {
      await work();
    } catch (err) {
      if (!(err instanceof ApiError)) console.error(err);
      if (!(err instanceof ApiError && err.status === 401)) alert.textContent = err.message;
    } finally {
      alert.busy = false;
    }
  }

  // ---------------------------------------------------------------- sections

  /** The parts every section has: errors and results of its row actions, its list, and its one-time secret. */
  function partsOf(section) {
    const part = (cls) => $(`:scope > .${cls}`, section);
    return { section, heading: $('h2, h3', section), alert: part('alert'), done: part('done'), list: part('list'), secretSlot: part('secret-slot') };
  }

  function subsection(id, title, intro) {
    return h(
      'section',
      { class: 'card', id, 'aria-labelledby': `${id}-heading` },
      h('h3', { id: `${id}-heading`, tabIndex: -1 }, title),
      h('p', {}, intro),
      h('div', { class: 'alert', role: 'alert' }),
      h('p', { class: 'done', role: 'status' }),
      h('div', { class: 'list' }),
      h('div', { class: 'secret-slot' }),
    );
  }

  /** A row action for a section: its outcome said in the section; focus kept when the row it was on is redrawn. */
  async function rowAction(parts, work) {
    parts.done.textContent = '';
    await attempt(parts.alert, async () => {
      const said = await work();
      if (said) parts.done.textContent = said;
    });
    if (!document.activeElement || document.activeElement === document.body) parts.heading.focus();
  }

  /** A create form: its failure said under it; on success it is cleared. */
  function createForm(title, level, controls, submitLabel, onSubmit) {
    const alert = h('div', { class: 'alert', role: 'alert' });
    const form = h('form', { class: 'create', noValidate: true }, h(`h${level}`, {}, title), controls, h('p', {}, h('button', { type: 'submit' }, submitLabel)), alert);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      attempt(alert, async () => {
        await onSubmit(form);
        form.reset();
      });
    });
    return form;
  }

  // ---------------------------------------------------------------- secrets shown once

  function clearSecret(parts) {
    parts.secretSlot.replaceChildren();
  }

  /**
   * A secret shown once: read-only values with a Copy button each, until "Done" or the section's next refresh
   * removes them from the page.
   */
  function showSecret(parts, title, values, notes) {
    const level = Number(parts.heading.tagName.slice(1)) + 1;
    const headingId = nextId('secret');
    const heading = h(`h${level}`, { id: headingId, tabIndex: -1 }, title);
    const done = () => {
      clearSecret(parts);
      parts.heading.focus();
    };
    parts.secretSlot.replaceChildren(
      h(
        'div',
        { class: 'secret', role: 'group', 'aria-labelledby': headingId },
        heading,
        h('p', { class: 'warning' }, 'Copy it now: it will not be shown again.'),
        values.map(secretValue),
        (notes || []).map((note) => h('p', {}, note)),
        h('p', {}, h('button', { type: 'button', onclick: done }, 'Done')),
      ),
    );
    heading.focus();
  }

  /** One value: a read-only field, or a <pre> block for JSON, with its Copy button and where "Copied" is said. */
  function secretValue(value) {
    const status = h('span', { class: 'copy-status', role: 'status' });
    const copy = (control) => h('button', { type: 'button', onclick: () => copyText(value.text, control, status) }, 'Copy', hidden(` ${value.label.toLowerCase()}`));
    if (value.block) {
      const pre = h('pre', { class: 'value', tabIndex: 0 }, value.text);
      return h('figure', { class: 'secret-value' }, h('figcaption', {}, value.label), pre, h('p', {}, copy(pre), ' ', status));
    }
    const input = h('input', { type: 'text', class: 'value', readOnly: true, value: value.text, spellcheck: false, autocomplete: 'off' });
    return h('div', { class: 'secret-value' }, field(value.label, input), h('p', {}, copy(input), ' ', status));
  }

  async function copyText(text, control, status) {
    status.textContent = '';
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = 'Copied';
    } catch (err) {
      // No clipboard (an insecure origin, a refused permission): select it for Ctrl+C instead.
      selectContents(control);
      status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy';
    }
  }

  function selectContents(control) {
    control.focus();
    if (control.select) return control.select();
    const range = document.createRange();
    range.selectNodeContents(control);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
  }

  // ---------------------------------------------------------------- confirmations

  /**
   * A button for what cannot be undone: pressed, it becomes "Confirm …" and "Cancel" (Escape cancels too), focus
   * on the confirmation, so one stray press or keystroke does nothing.
   */
  function confirmingButton(label, confirmLabel, what, action) {
    const holder = h('span', { class: 'confirm' });
    function initial() {
      const button = h('button', { type: 'button', onclick: ask }, label, hidden(` ${what}`));
      holder.replaceChildren(button);
      return button;
    }
    function ask() {
      const yes = h('button', { type: 'button', class: 'danger', onclick: action }, confirmLabel, hidden(` ${what}`));
      const no = h('button', { type: 'button', onclick: () => initial().focus() }, 'Cancel', hidden(` ${label.toLowerCase()} ${what}`));
      holder.replaceChildren(yes, ' ', no);
      yes.focus();
    }
    holder.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && holder.childElementCount > 1) initial().focus();
    });
    initial();
    return holder;
  }

  // ---------------------------------------------------------------- signed out, signed in

  function showSignedOut(reason) {
    csrfToken = '';
    // Whatever was shown goes, secrets included.
    $('#organizations').replaceChildren();
    clearSecret(tokens);
    tokens.list.replaceChildren();
    $('#loading').hidden = true;
    $('#account').hidden = true;
    $('#signed-in').hidden = true;
    $('#signed-out').hidden = false;
    $('#signed-out-reason').textContent = signedIn ? reason : '';
    // Ended while in use: what focus was on is gone, so it goes to what is said instead.
    if (signedIn) $('#signed-out-heading').focus();
    signedIn = false;
  }

  async function start() {
    let session;
    try {
      session = await query('settings.session');
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        $('#loading').hidden = true;
        $('#page-alert').textContent = err.message;
      }
      return;
    }
    csrfToken = session.csrf_token;
    signedIn = true;
    $('#account-name').textContent = session.user.name;
    $('#account-email').textContent = `(${session.user.email})`;
    $('#memberships').textContent = session.organizations.length
      ? `Your organizations: ${session.organizations.map((o) => `${o.name} (${o.role})`).join(', ')}.`
      : 'You are not an active member of any organization.';
    $('#loading').hidden = true;
    $('#account').hidden = false;
    $('#signed-in').hidden = false;
    setUpTokens(session.organizations);
    await attempt(tokens.alert, refreshTokens);
    const administered = session.organizations.filter((o) => o.role === 'admin');
    if (administered.length) {
      await attempt($('#page-alert'), async () => {
        const eventTypes = await query('settings.webhooks.eventTypes');
        $('#organizations').replaceChildren(...administered.map((org) => organizationSection(org, eventTypes)));
      });
    }
  }

  function signOut() {
    const alert = $('#sign-out-alert');
    attempt(alert, async () => {
      // The answer is a redirect to this page, not followed: the page reloads itself below.
      const res = await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin', redirect: 'manual', headers: { 'X-CSRF-Token': csrfToken } });
      // A refusal is a page for people (403); it says why, but this one line is enough here.
      if (res.type !== 'opaqueredirect' && !res.ok) throw new ApiError(`Signing out was refused (${res.status}). Reload the page and try again.`, res.status);
      window.location.assign('/settings/');
    });
  }

  // ---------------------------------------------------------------- own API tokens

  const tokens = partsOf($('#api-tokens'));
  let organizationNames = new Map();

  function setUpTokens(organizations) {
    organizationNames = new Map(organizations.map((o) => [o.id, o.name]));
    const scope = $('#token-scope');
    $('.choices', scope).replaceChildren(
      ...organizations.map((o) => h('label', { class: 'choice' }, h('input', { type: 'checkbox', name: 'organization_ids', value: o.id }), ' ', o.name)),
    );
    scope.hidden = organizations.length === 0;
  }

  async function refreshTokens() {
    clearSecret(tokens);
    const list = await query('settings.apiTokens.list');
    tokens.list.replaceChildren(tokenTable(list));
  }

  function tokenTable(list) {
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
        token.status === 'active' ? confirmingButton('Revoke', 'Confirm revoke', token.name, () => revokeToken(token)) : '',
      ]),
    );
  }

  function reach(token) {
    const only = token.organizations.map((id) => organizationNames.get(id) || id);
    if (token.teams.length) only.push(`${token.teams.length} team${token.teams.length === 1 ? '' : 's'}`);
    return only.length ? h('span', { class: 'hint' }, `Only: ${only.join(', ')}`) : null;
  }

  function revokeToken(token) {
    return rowAction(tokens, async () => {
      await mutate('settings.apiTokens.revoke', { token_id: token.id });
      await refreshTokens();
      return `Revoked “${token.name}”. Requests with it are refused within a few seconds.`;
    });
  }

  $('#token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const expiry = form.elements.expires_in_days.value;
    const input = {
      name: form.elements.name.value,
      expires_in_days: expiry === 'never' ? null : Number(expiry),
      organization_ids: checkedValues(form, 'organization_ids'),
    };
    tokens.done.textContent = '';
    attempt($('.alert', form), async () => {
      const created = await mutate('settings.apiTokens.create', input);
      form.reset();
      await refreshTokens();
      const expires = created.expires_at ? ['It expires ', when(created.expires_at), '.'] : 'It does not expire.';
      showSecret(tokens, `Your new token “${input.name.trim()}”`, [{ label: 'New API token', text: created.token }], [h('span', {}, expires)]);
    });
  });

  // ---------------------------------------------------------------- organizations

  function organizationSection(org, eventTypes) {
    const headingId = `${org.id}-heading`;
    return h(
      'section',
      { class: 'organization', 'aria-labelledby': headingId },
      h('h2', { id: headingId }, org.name),
      h('p', { class: 'muted' }, 'You are an admin of this organization.'),
      webhooksSection(org, eventTypes),
      gitAppsSection(org),
      organizationTokensSection(org, SCIM),
      organizationTokensSection(org, TELEMETRY),
    );
  }

  // ---------------------------------------------------------------- webhooks

  function webhooksSection(org, eventTypes) {
    const parts = partsOf(subsection(`${org.id}-webhooks`, 'Webhooks', 'Signed HTTP POSTs to your endpoints when something happens in the organization.'));
    const of = { organization_id: org.id };
    const deliveries = h('div', { class: 'deliveries' });
    parts.secretSlot.before(deliveries);

    async function refresh() {
      clearSecret(parts);
      parts.list.replaceChildren(endpointTable(await query('settings.webhooks.list', of)));
    }

    function endpointTable(endpoints) {
      if (!endpoints.length) return h('p', { class: 'empty' }, 'No webhook endpoints yet.');
      return table(
        `Webhook endpoints of ${org.name}`,
        ['URL', 'Events', 'State', 'Actions'],
        endpoints.map((endpoint) => [
          h('code', { class: 'url' }, endpoint.url),
          endpoint.events ? endpoint.events.join(', ') : 'All events',
          endpoint.is_active ? h('span', { class: 'status status-active' }, 'active') : [h('span', { class: 'status status-disabled' }, 'disabled'), h('span', { class: 'hint' }, endpoint.disabled_reason || '')],
          h(
            'span',
            { class: 'actions' },
            h('button', { type: 'button', onclick: () => setActive(endpoint, !endpoint.is_active) }, endpoint.is_active ? 'Disable' : 'Enable', hidden(` ${endpoint.url}`)),
            h('button', { type: 'button', onclick: () => rotate(endpoint) }, 'Rotate secret', hidden(` of ${endpoint.url}`)),
            h('button', { type: 'button', onclick: () => showDeliveries(endpoint) }, 'Deliveries', hidden(` to ${endpoint.url}`)),
          ),
        ]),
      );
    }

    function setActive(endpoint, active) {
      return rowAction(parts, async () => {
        const result = await mutate(active ? 'settings.webhooks.enable' : 'settings.webhooks.disable', { ...of, endpoint_id: endpoint.id });
        await refresh();
        if (!active) return `Disabled ${endpoint.url}: no deliveries go to it until it is enabled.`;
        return result.resumed ? `Enabled ${endpoint.url}; ${result.resumed} waiting deliveries go out now.` : `Enabled ${endpoint.url}.`;
      });
    }

    function rotate(endpoint) {
      return rowAction(parts, async () => {
        const rotated = await mutate('settings.webhooks.rotateSecret', { ...of, endpoint_id: endpoint.id });
        await refresh();
        showSecret(parts, `New signing secret for ${endpoint.url}`, [{ label: 'Signing secret', text: rotated.secret }], [
          'Deliveries are signed with the previous secret too for 24 hours, while you update your receiver.',
        ]);
      });
    }

    async function showDeliveries(endpoint) {
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
        const events = checkedValues(f, 'events');
        const created = await mutate('settings.webhooks.create', { ...of, url: f.elements.url.value.trim(), events: events.length ? events : null });
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
  function deliveriesPanel(of, endpoint, close) {
    const headingId = nextId('deliveries');
    const alert = h('div', { class: 'alert', role: 'alert' });
    const said = h('p', { class: 'done', role: 'status' });
    const rows = h('div');
    const heading = h('h4', { id: headingId, tabIndex: -1 }, 'Deliveries to ', h('code', { class: 'url' }, endpoint.url));
    const fill = async () => rows.replaceChildren(deliveryTable(await query('settings.webhooks.deliveries', { ...of, endpoint_id: endpoint.id })));
    const load = () => attempt(alert, fill);

    function replay(row) {
      return attempt(alert, async () => {
        said.textContent = '';
        await mutate('settings.webhooks.replay', { ...of, delivery_id: row.delivery_id });
        await fill();
        said.textContent = `Replay of the ${row.event_type} event queued: it goes out again with the same webhook-id. Refresh to see it.`;
        if (!document.activeElement || document.activeElement === document.body) heading.focus();
      });
    }

    function deliveryTable(attempts) {
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

  // ---------------------------------------------------------------- git apps

  const PROVIDERS = { github: 'GitHub', gitlab: 'GitLab' };

  function gitAppsSection(org) {
    const parts = partsOf(subsection(`${org.id}-git-apps`, 'Git apps', 'Connections that receive GitHub’s or GitLab’s webhooks for your repositories.'));
    const of = { organization_id: org.id };

    async function refresh() {
      clearSecret(parts);
      parts.list.replaceChildren(gitAppTable(await query('settings.gitApps.list', of)));
    }

    function gitAppTable(apps) {
      if (!apps.length) return h('p', { class: 'empty' }, 'No git apps yet.');
      return table(
        `Git apps of ${org.name}`,
        ['Name', 'Provider', 'Webhook URL', 'Secret', 'Actions'],
        apps.map((app) => [
          app.name,
          PROVIDERS[app.provider] || app.provider,
          app.webhook_url ? h('code', { class: 'url' }, app.webhook_url) : 'None',
          app.has_secret ? 'Set' : 'Not set',
          app.webhook_url ? h('button', { type: 'button', onclick: () => rotate(app) }, 'Rotate secret', hidden(` of ${app.name}`)) : '',
        ]),
      );
    }

    function rotate(app) {
      return rowAction(parts, async () => {
        const rotated = await mutate('settings.gitApps.rotateSecret', { ...of, git_app_id: app.id });
        await refresh();
        showSecret(parts, `New webhook secret for ${app.name}`, [{ label: 'Webhook secret', text: rotated.secret }], [
          `Paste it into ${PROVIDERS[app.provider] || app.provider}’s webhook settings. The previous secret is accepted for 24 hours.`,
        ]);
      });
    }

    const form = createForm(
      'Add a git app',
      4,
      [
        field('Provider', h('select', { name: 'provider' }, Object.keys(PROVIDERS).map((p) => h('option', { value: p }, PROVIDERS[p])))),
        field('Name', h('input', { type: 'text', name: 'name', maxLength: 200, required: true, autocomplete: 'off' })),
      ],
      'Add git app',
      async (f) => {
        const created = await mutate('settings.gitApps.create', { ...of, provider: f.elements.provider.value, name: f.elements.name.value });
        await refresh();
        const provider = PROVIDERS[created.git_app.provider] || created.git_app.provider;
        showSecret(
          parts,
          `Git app “${created.git_app.name}”`,
          [
            { label: 'Webhook URL', text: created.git_app.webhook_url },
            { label: 'Webhook secret', text: created.secret },
          ],
          [`In ${provider}’s webhook settings, use this URL and secret. ${created.provider_settings}.`],
        );
      },
    );
    parts.section.append(form);
    attempt(parts.alert, refresh);
    return parts.section;
  }

  // ---------------------------------------------------------------- SCIM and telemetry tokens

  const SCIM = {
    slug: 'scim',
    procedures: 'settings.scimTokens',
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

  const TELEMETRY = {
    slug: 'telemetry',
    procedures: 'settings.otlpTokens',
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

  function organizationTokensSection(org, kind) {
    const parts = partsOf(subsection(`${org.id}-${kind.slug}`, kind.title, kind.intro));
    const of = { organization_id: org.id };

    async function refresh() {
      clearSecret(parts);
      const list = await query(`${kind.procedures}.list`, of);
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

    function revoke(token) {
      return rowAction(parts, async () => {
        await mutate(`${kind.procedures}.revoke`, { ...of, token_id: token.id });
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
        const name = f.elements.name.value;
        const created = await mutate(`${kind.procedures}.create`, { ...of, name });
        await refresh();
        const shown = kind.revealed(created);
        showSecret(parts, `Your new ${kind.noun} “${name.trim()}”`, shown.values, shown.notes);
      },
    );
    parts.section.append(form);
    attempt(parts.alert, refresh);
    return parts.section;
  }

  // ---------------------------------------------------------------- start

  $('#sign-out').addEventListener('click', signOut);
  start();
})();
