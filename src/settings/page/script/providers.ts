import type { Outputs } from '../../../pages/script/api';
import { h } from '../../../pages/script/elements';

/**
 * The providers the service connects to, as settings.providers offers them (the server's registry): the page's only
 * source of their names, and of what each takes, so a provider added on the server needs no edit here.
 */
export type Catalog = Outputs['settings']['providers'];
export type Provider = Catalog[number];

/** As people know it; one the service does not offer (a connection made elsewhere) by its id. */
export const providerName = (catalog: Catalog, id: string): string => catalog.find((p) => p.id === id)?.name ?? id;

/** A form's choice among `choices`, by their names. */
export const providerChoice = (choices: Catalog): HTMLSelectElement => h('select', { name: 'provider' }, choices.map((p) => h('option', { value: p.id }, p.name)));

/** The provider chosen in a form, one of `choices`. */
export function chosenProvider(choices: Catalog, value: string): Provider {
  const provider = choices.find((p) => p.id === value);
  if (!provider) throw new Error(`Choose a provider: ${choices.map((p) => p.name).join(', ')}.`);
  return provider;
}

/** Words as a sentence lists them: “A, B and C”. */
export function listed(words: readonly string[], last: 'and' | 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}
