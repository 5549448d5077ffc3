import { attempt } from '../../../pages/script/attempt';
import { api, call, Outputs } from '../../../pages/script/api';
import { field, h, hidden, table, valueOf } from '../../../pages/script/elements';

type Settings = Outputs['settings']['metrics']['get'];
type Repository = Outputs['settings']['apps']['repositories'][number];

/** What the panel tells the section it sits in: the settings a change left, and the sentence saying what it did. */
export type Saved = (settings: Settings, outcome: string) => void;

/**
 * A repository's own production environments (docs/settings.md#what-counts): the repositories that have a list of
 * their own, each with a button that gives it the organization's back, and a form that sets one. `show` draws it
 * from the settings the section shows.
 */
export function repositoryProductionPanel(of: { organization_id: string }, saved: Saved): { panel: HTMLElement; show(settings: Settings): void } {
  // One dashed rule above the whole panel, as above the team's repositories' form below it.
  const panel = h('div', { class: 'create repository-production' });
  const alert = h('div', { class: 'alert', role: 'alert' });
  let repositories: readonly Repository[] | undefined;
  const nameOf = (id: string) => repositories?.find((r) => r.id === id)?.full_name ?? id;

  function set(repository: string, list: string[] | null, before: Settings): Promise<void> {
    return attempt(alert, async () => {
      const after = await call(api.settings.metrics.setRepositoryProduction.mutate({ ...of, repository, production_environments: list }));
      const named = repositories?.find((r) => r.id === repository || r.full_name.toLowerCase() === repository.toLowerCase())?.full_name ?? repository;
      saved(
        after,
        after.version === before.version
          ? `Nothing changed: ${named}’s production environments are already these.`
          : list
            ? `Saved as version ${after.version}: ${named}’s deployments to ${list.join(', ')} count as production, for their whole history.`
            : `Saved as version ${after.version}: ${named} counts the organization’s production environments again.`,
      );
    });
  }

  function show(settings: Settings): void {
    const own = Object.entries(settings.repository_production_environments);
    const form = h(
      'form',
      { noValidate: true },
      field('Repository', h('input', { type: 'text', name: 'repository', required: true, autocomplete: 'off', list: `${of.organization_id}-repositories` }), 'Its full name (owner/name) or id.'),
      h('datalist', { id: `${of.organization_id}-repositories` }, ...(repositories ?? []).map((r) => h('option', { value: r.full_name }))),
      field('Environments that count as its production', h('input', { type: 'text', name: 'own_production_environments', required: true, autocomplete: 'off' }), 'Names or globs, separated by commas, in place of the organization’s. Example: live, prod-eu-*.'),
      h('p', {}, h('button', { type: 'submit' }, 'Save its environments')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const list = valueOf(form, 'own_production_environments').split(',').map((e) => e.trim()).filter((e) => e !== '');
      void set(valueOf(form, 'repository').trim(), list, settings);
    });
    panel.replaceChildren(
      h('h4', {}, 'A repository’s own production environments'),
      h('p', {}, 'For a repository that deploys to production under names of its own: its deployments are read by its list, every other repository’s by the organization’s.'),
      own.length
        ? table(
            'Repositories with production environments of their own',
            ['Repository', 'Production environments', 'Actions'],
            own.map(([id, list]) => [nameOf(id), list.join(', '), h('button', { type: 'button', onclick: () => set(id, null, settings) }, 'Use the organization’s', hidden(` for ${nameOf(id)}`))]),
          )
        : h('p', { class: 'empty' }, 'None: every repository counts the organization’s production environments.'),
      form,
      alert,
    );
  }

  return {
    panel,
    show(settings) {
      // The names are read once: a repository made since shows by its id until the page is loaded again.
      if (repositories) return show(settings);
      void attempt(alert, async () => {
        repositories = await call(api.settings.apps.repositories.query(of));
        show(settings);
      });
    },
  };
}
