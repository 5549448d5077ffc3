import { h, hidden } from './elements';

/**
 * A button for what cannot be undone: pressed, it becomes "Confirm …" and "Cancel" (Escape cancels too), focus
 * on the confirmation, so one stray press or keystroke does nothing.
 */
export function confirmingButton(label: string, confirmLabel: string, what: string, action: () => void): HTMLElement {
  const holder = h('span', { class: 'confirm' });
  function initial(): HTMLElement {
    const button = h('button', { type: 'button', onclick: ask }, label, hidden(` ${what}`));
    holder.replaceChildren(button);
    return button;
  }
  function ask(): void {
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
