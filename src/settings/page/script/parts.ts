import { $, h } from '../../../pages/script/elements';

/** The parts every section has: errors and results of its row actions, its list, and its one-time secret. */
export interface Parts {
  section: HTMLElement;
  heading: HTMLElement;
  alert: HTMLElement;
  done: HTMLElement;
  list: HTMLElement;
  secretSlot: HTMLElement;
}

export function partsOf(section: HTMLElement): Parts {
  const part = (cls: string) => $(`:scope > .${cls}`, section);
  return { section, heading: $('h2, h3', section), alert: part('alert'), done: part('done'), list: part('list'), secretSlot: part('secret-slot') };
}

export function subsection(id: string, title: string, intro: string): HTMLElement {
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
