import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, table, valueOf } from '../../../pages/script/elements';
import { partsOf, subsection } from './parts';

type Organization = Outputs['settings']['session']['organizations'][number];
type Settings = Outputs['settings']['metrics']['get'];

/** A list as one line of the form: entries separated by commas. */
const listText = (entries: readonly string[], empty = '') => (entries.length ? entries.join(', ') : empty);
const entriesOf = (text: string) => text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');

/**
 * What counts in the organization's figures (docs/settings.md#what-counts): the settings in force with their
 * version and defaults, and a form to change them; each save that changes something is a new version, which every
 * metric answer then names.
 */
export function metricSettingsSection(org: Organization): HTMLElement {
  const parts = partsOf(
    subsection(
      `${org.id}-what-counts`,
      'What counts',
      'What the organization’s figures count. A change holds for the whole history at once, and every metric answer names the version it was computed under.',
    ),
  );
  const of = { organization_id: org.id };

  function show(settings: Settings): void {
    const version = settings.version === 0 ? '0 (the defaults: never changed)' : `${settings.version}, saved ${new Date(settings.updated_at ?? '').toLocaleString()}`;
    parts.list.replaceChildren(
      h('p', {}, `Version ${version}.`),
      table(
        `What counts in ${org.name}`,
        ['Setting', 'In force', 'Default'],
        [
          ['Production environments', listText(settings.production_environments), listText(settings.defaults.production_environments)],
          ['Incident urgency', settings.incident_urgency, settings.defaults.incident_urgency],
          ['Incident priorities', listText(settings.incident_priorities, 'any'), listText(settings.defaults.incident_priorities, 'any')],
          ['Incident services', listText(settings.incident_services, 'any'), listText(settings.defaults.incident_services, 'any')],
        ],
      ),
      changeForm(settings),
    );
  }

  function changeForm(settings: Settings): HTMLFormElement {
    const alert = h('div', { class: 'alert', role: 'alert' });
    const environments = h('input', { type: 'text', name: 'production_environments', required: true, autocomplete: 'off', value: listText(settings.production_environments) });
    const form = h(
      'form',
      { class: 'create', noValidate: true },
      h('h4', {}, 'Change what counts'),
      field('Production environments', environments, 'Names or globs, separated by commas: * stands for any run of characters, ? for one; case does not matter. Example: production, prod-*, live.'),
      field(
        'Incident urgency',
        h('select', { name: 'incident_urgency' }, ...(['any', 'high'] as const).map((u) => h('option', { value: u, selected: settings.incident_urgency === u }, u))),
        'Which PagerDuty urgencies count in time to restore; an incident with no urgency always counts.',
      ),
      field('Incident priorities', h('input', { type: 'text', name: 'incident_priorities', autocomplete: 'off', value: listText(settings.incident_priorities) }), 'P1 to P5, separated by commas; empty: any. An incident with no priority always counts.'),
      field('Incident services', h('input', { type: 'text', name: 'incident_services', autocomplete: 'off', value: listText(settings.incident_services) }), 'PagerDuty services or Opsgenie teams, by name or id, separated by commas; empty: any.'),
      h('p', {}, h('button', { type: 'submit' }, 'Save')),
      alert,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      parts.done.textContent = '';
      void attempt(alert, async () => {
        const incidentUrgency = valueOf(form, 'incident_urgency') === 'high' ? 'high' : 'any';
        const changes = {
          production_environments: entriesOf(valueOf(form, 'production_environments')),
          incident_urgency: incidentUrgency,
          incident_priorities: entriesOf(valueOf(form, 'incident_priorities')),
          incident_services: entriesOf(valueOf(form, 'incident_services')),
        };
        const saved = await call(api.settings.metrics.update.mutate({ ...of, settings: changes }));
        show(saved);
        parts.done.textContent =
          saved.version === settings.version ? 'Nothing changed: these are the settings in force.' : `Saved as version ${saved.version}: the figures count it from now on, for their whole history.`;
        parts.heading.focus();
      });
    });
    return form;
  }

  void attempt(parts.alert, async () => show(await call(api.settings.metrics.get.query(of))));
  return parts.section;
}
