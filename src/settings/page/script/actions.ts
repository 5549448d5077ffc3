import { ApiError } from './api';
import { Child, h } from './elements';
import type { Parts } from './parts';

/** An alert that also remembers whether its work is under way. */
const busy = new WeakSet<HTMLElement>();

/**
 * Runs `work` for something the person did, its failure said in `alert` (a 401 has shown the signed-out view
 * instead). A second press while the first is under way does nothing.
 */
export async function attempt(alert: HTMLElement, work: () => Promise<unknown>): Promise<void> {
  if (busy.has(alert)) return;
  busy.add(alert);
  alert.textContent = '';
  try {
    await work();
  } catch (err) {
    if (!(err instanceof ApiError)) console.error(err);
    if (!(err instanceof ApiError && err.status === 401)) alert.textContent = err instanceof Error ? err.message : String(err);
  } finally {
    busy.delete(alert);
  }
}

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
