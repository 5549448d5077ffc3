import { attempt } from '../../../pages/script/attempt';
import { Child, h } from '../../../pages/script/elements';
import type { Parts } from './parts';

/** A row action for a section: its outcome said in the section; focus kept when the row it was on is redrawn. */
export async function rowAction(parts: Parts, work: () => Promise<string | void>): Promise<void> {
  parts.done.textContent = '';
  await attempt(parts.alert, async () => {
    const said = await work();
    if (said) parts.done.textContent = said;
  });
  if (!document.activeElement || document.activeElement === document.body) parts.heading.focus();
}

/** A create form: its failure said under it; on success it is cleared. */
export function createForm(title: string, level: number, controls: Child, submitLabel: string, onSubmit: (form: HTMLFormElement) => Promise<void>): HTMLFormElement {
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
