import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';
import { partsOf, subsection } from './parts';
import { repositoryProductionPanel } from './repositoryProduction';

type Organization = Outputs['settings']['session']['organizations'][number];
type Settings = Outputs['settings']['metrics']['get'];
type Team = Outputs['settings']['teams']['list'][number];
type TeamRepositories = Outputs['settings']['metrics']['teamRepositories'];
type SeatPrices = Outputs['settings']['metrics']['seatPrices'];

/** A list as one line of the form: entries separated by commas. */
const listText = (entries: readonly string[], empty = '') => (entries.length ? entries.join(', ') : empty);
const entriesOf = (text: string) => text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');

/** What a change failure is, in the words of docs/metrics.md#what-a-change-failure-is. */
function changeFailureText(setting: Settings['change_failure']): string {
  const within = setting.revert_within_hours;
  const causes = [
    ...(setting.failed_deployment ? ['a failed job'] : []),
    ...(setting.incident ? ['an incident naming its commit'] : []),
    ...(within !== null ? [`a revert or rollback within ${within} h`] : []),
    ...(within !== null && setting.hotfix_patterns.length ? [`a hotfix within ${within} h (${setting.hotfix_patterns.join(', ')})`] : []),
  ];
  return causes.length ? causes.join(', ') : 'nothing';
}

/** The organization's bot accounts and whether the maintained list applies too, in a few words. */
const botsText = (accounts: readonly string[], defaultList: boolean) =>
  [...(accounts.length ? [accounts.join(', ')] : []), ...(defaultList ? ['the maintained list'] : [])].join(' and ') || 'none';

/** While a change is recomputed, the page asks again this often and shows how far it got. */
const RECOMPUTATION_POLL_MS = 2_000;

/** The hours as typed: empty is none (reverts not read); anything else goes to the service, which says what is wrong. */
const hoursOf = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));

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

  let polling: ReturnType<typeof setTimeout> | undefined;
  function show(settings: Settings): void {
    const version = settings.version === 0 ? '0 (the defaults: never changed)' : `${settings.version}, saved ${new Date(settings.updated_at ?? '').toLocaleString()}`;
    const pending = settings.recomputation;
    clearTimeout(polling);
    // A poll that fails (the network, a restart) shows what it showed and asks again later.
    const poll = () => void call(api.settings.metrics.get.query(of)).then(show, () => (polling = setTimeout(poll, RECOMPUTATION_POLL_MS)));
    if (pending) polling = setTimeout(poll, RECOMPUTATION_POLL_MS);
    parts.list.replaceChildren(
      h('p', {}, `Version ${version}.`),
      ...(pending
        ? [
            h(
              'p',
              { class: 'recomputation', role: 'status' },
              `Version ${pending.version} is being recomputed over the history: ${pending.done} of ${pending.total} pull requests done. Until it is, the figures are those of version ${settings.version}, and say so.`,
            ),
          ]
        : []),
      table(
        `What counts in ${org.name}`,
        ['Setting', 'In force', 'Default'],
        [
          ['Production environments', listText(settings.production_environments), listText(settings.defaults.production_environments)],
          ['Incident urgency', settings.incident_urgency, settings.defaults.incident_urgency],
          ['Incident priorities', listText(settings.incident_priorities, 'any'), listText(settings.defaults.incident_priorities, 'any')],
          ['Incident services', listText(settings.incident_services, 'any'), listText(settings.defaults.incident_services, 'any')],
          ['Drafts measured from ready for review', settings.drafts_from_ready ? 'yes' : 'no', settings.defaults.drafts_from_ready ? 'yes' : 'no'],
          ['Change failure', changeFailureText(settings.change_failure), changeFailureText(settings.defaults.change_failure)],
          ['Bot accounts', botsText(settings.bot_accounts, settings.bot_default_list), botsText(settings.defaults.bot_accounts, settings.defaults.bot_default_list)],
        ],
      ),
      changeForm(settings),
    );
    production.show(settings);
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
      field(
        'Drafts measured from ready for review',
        h('select', { name: 'drafts_from_ready' }, ...(['no', 'yes'] as const).map((v) => h('option', { value: v, selected: settings.drafts_from_ready === (v === 'yes') }, v))),
        'Yes: a pull request opened as a draft has its time to merge, pickup and approval from the last time it became ready for review, as Swarmia and LinearB count them; no: from its opening.',
      ),
      ...changeFailureFields(settings.change_failure),
      ...botFields(settings.recomputation?.settings ?? settings),
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
          drafts_from_ready: valueOf(form, 'drafts_from_ready') === 'yes',
          change_failure: {
            failed_deployment: valueOf(form, 'failed_deployment') === 'yes',
            incident: valueOf(form, 'incident') === 'yes',
            revert_within_hours: hoursOf(valueOf(form, 'revert_within_hours')),
            hotfix_patterns: entriesOf(valueOf(form, 'hotfix_patterns')),
          },
          bot_accounts: entriesOf(valueOf(form, 'bot_accounts')),
          bot_default_list: valueOf(form, 'bot_default_list') === 'yes',
        };
        const saved = await call(api.settings.metrics.update.mutate({ ...of, settings: changes }));
        show(saved);
        const recomputing = saved.recomputation && saved.recomputation.version !== settings.recomputation?.version ? saved.recomputation : null;
        parts.done.textContent = recomputing
          ? `Saved as version ${recomputing.version}: it is being recomputed over the history, and the figures count it once that is done.`
          : saved.version === settings.version
            ? 'Nothing changed: these are the settings in force.'
            : `Saved as version ${saved.version}: the figures count it from now on, for their whole history.`;
        parts.heading.focus();
      });
    });
    return form;
  }

  /** The bots: the settings being recomputed when a change is, so that the form shows what was saved last. */
  function botFields(setting: Pick<Settings, 'bot_accounts' | 'bot_default_list'>): HTMLElement[] {
    return [
      field(
        'Bot accounts',
        h('input', { type: 'text', name: 'bot_accounts', autocomplete: 'off', value: listText(setting.bot_accounts) }),
        'Logins or globs of the organization’s own bots, separated by commas: their pull requests, the reviews on them and the reviews they give are left out of the pull-request and collaboration figures. Example: release-bot, svc-*.',
      ),
      field(
        'The maintained list of bots applies too',
        h('select', { name: 'bot_default_list' }, h('option', { value: 'yes', selected: setting.bot_default_list }, 'yes'), h('option', { value: 'no', selected: !setting.bot_default_list }, 'no')),
        'GitHub Apps (*[bot]: Dependabot, Renovate, GitHub Actions), dependabot, renovate, renovate-bot, and GitLab’s project and group access token bots. A change of the bots is recomputed over the history before it applies.',
      ),
    ];
  }

  function changeFailureFields(setting: Settings['change_failure']): HTMLElement[] {
    const yesNo = (name: string, on: boolean) => h('select', { name }, h('option', { value: 'yes', selected: on }, 'yes'), h('option', { value: 'no', selected: !on }, 'no'));
    return [
      field('A failed deployment job is a change failure', yesNo('failed_deployment', setting.failed_deployment), 'DORA counts only what reached production; a failed job did not.'),
      field('An incident naming the deployed commit is a change failure', yesNo('incident', setting.incident)),
      field(
        'Reverted or rolled back within (hours)',
        h('input', { type: 'number', name: 'revert_within_hours', min: '1', max: '720', step: '1', value: setting.revert_within_hours === null ? '' : String(setting.revert_within_hours) }),
        'A later deployment that reverts a commit it shipped, or rolls it back, within these hours makes it a change failure; 1 to 720, empty: not read.',
      ),
      field(
        'Hotfix patterns',
        h('input', { type: 'text', name: 'hotfix_patterns', autocomplete: 'off', value: listText(setting.hotfix_patterns) }),
        'Globs on the commit messages and pull request titles a later deployment ships within the same hours, separated by commas; empty: not read. Example: hotfix*, *[hotfix]*.',
      ),
    ];
  }

  // A repository's own production environments, then a team's repositories: settings of what counts too, below the others.
  const production = repositoryProductionPanel(of, (settings, outcome) => {
    show(settings);
    parts.done.textContent = outcome;
    parts.heading.focus();
  });
  parts.secretSlot.before(production.panel);

  const teamPanel = h('div', { class: 'team-repositories' });
  parts.secretSlot.before(teamPanel);

  // The AI tools' seat prices: what the financial figures' AI spend counts for a tool that reports no cost of its own.
  const seatPanel = h('div', { class: 'seat-prices' });
  parts.secretSlot.before(seatPanel);

  async function load(): Promise<void> {
    const [settings, teams, seats] = await Promise.all([call(api.settings.metrics.get.query(of)), call(api.settings.teams.list.query(of)), call(api.settings.metrics.seatPrices.query(of))]);
    show(settings);
    teamPanel.replaceChildren(teamRepositoriesForm(teams));
    showSeatPrices(seats);
  }

  function showSeatPrices(seats: SeatPrices): void {
    const alert = h('div', { class: 'alert', role: 'alert' });
    const rows = seats.tools.map(({ tool, monthly }) => {
      const input = h('input', { type: 'number', min: '0', step: '0.01', name: tool, value: monthly === null ? '' : String(monthly), 'aria-label': `Seat price of ${tool}` });
      const save = () =>
        attempt(alert, async () => {
          parts.done.textContent = '';
          const price = input.value.trim() === '' ? null : Number(input.value);
          showSeatPrices(await call(api.settings.metrics.setSeatPrice.mutate({ ...of, tool, monthly: price })));
          parts.done.textContent = price === null ? `${tool} has no seat price.` : `${tool}’s seat price is ${price} ${seats.currency} a month per active user.`;
        });
      return [tool, input, h('button', { type: 'button', onclick: save }, 'Save', hidden(` seat price of ${tool}`))];
    });
    seatPanel.replaceChildren(
      h('h4', {}, 'AI tools’ seat prices'),
      h('p', {}, `A month per active user, in ${seats.currency}: what the financial figures count as a tool’s spend when it reports no cost of its own. Empty: none set.`),
      table(`Seat prices of ${org.name}`, ['Tool', `Monthly (${seats.currency})`, 'Save'], rows),
      alert,
    );
  }

  function teamRepositoriesForm(teams: readonly Team[]): HTMLElement {
    if (!teams.length) return h('p', { class: 'empty' }, 'No teams yet: a team’s repositories are set once it exists.');
    const alert = h('div', { class: 'alert', role: 'alert' });
    const shown = h('div', {});
    const select = h('select', { name: 'team_id' }, ...teams.map((team) => h('option', { value: team.id }, team.name)));
    const repositories = h('input', { type: 'text', name: 'repositories', autocomplete: 'off' });
    const teamOf = () => teams.find((team) => team.id === select.value) ?? teams[0];
    const form = h(
      'form',
      { class: 'create', noValidate: true },
      h('h4', {}, 'A team’s repositories'),
      h('p', {}, 'A team’s git figures cover the repositories it owns; while it owns none, those its members authored commits in.'),
      field('Team', select),
      shown,
      field('Repositories it owns', repositories, 'Full names (owner/name) or ids, separated by commas.'),
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save repositories'),
        h('button', { type: 'button', onclick: () => save(null) }, 'Use its members’ repositories'),
      ),
      alert,
    );

    function showTeam(answer: TeamRepositories): void {
      const names = (list: readonly { full_name: string }[]) => (list.length ? list.map((r) => r.full_name).join(', ') : 'none');
      shown.replaceChildren(
        answer.owned
          ? h('p', {}, `${teamOf().name} owns ${names(answer.owned)}.`)
          : h('p', {}, `${teamOf().name} owns no repositories: its figures cover those its members authored commits in: ${names(answer.authored)}.`),
      );
      repositories.value = answer.owned ? answer.owned.map((r) => r.full_name).join(', ') : '';
    }

    const team = () => ({ ...of, team_id: teamOf().id });
    const showSelected = () => attempt(alert, async () => showTeam(await call(api.settings.metrics.teamRepositories.query(team()))));

    function save(list: string[] | null): Promise<void> {
      parts.done.textContent = '';
      return attempt(alert, async () => {
        const before = await call(api.settings.metrics.teamRepositories.query(team()));
        const saved = await call(api.settings.metrics.setTeamRepositories.mutate({ ...team(), repositories: list }));
        showTeam(saved);
        show(await call(api.settings.metrics.get.query(of)));
        parts.done.textContent =
          saved.version === before.version
            ? `Nothing changed: ${teamOf().name}’s repositories are already these.`
            : `Saved as version ${saved.version}: ${teamOf().name}’s figures cover ${saved.owned ? 'the repositories it owns' : 'its members’ repositories'}.`;
      });
    }

    select.addEventListener('change', () => void showSelected());
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void save(entriesOf(repositories.value));
    });
    void showSelected();
    return form;
  }

  void attempt(parts.alert, load);
  return parts.section;
}
