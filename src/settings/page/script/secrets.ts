import { Child, field, h, hidden, nextId, when } from '../../../pages/script/elements';
import type { Parts } from './parts';

/** One value of a secret: a read-only field, or with `block` a <pre> (for JSON). */
export interface SecretValue {
  label: string;
  text: string;
  block?: boolean;
}

/** A webhook secret's state in a list: whether one is set, and until when the one a rotation replaced is still accepted. */
export function webhookSecretState(hasSecret: boolean, previousAcceptedUntil: string | null): Child {
  if (!hasSecret) return 'Not set';
  if (!previousAcceptedUntil) return 'Set';
  return ['Set', h('small', {}, ' The previous one is accepted until ', when(previousAcceptedUntil), '.')];
}

export function clearSecret(parts: Parts): void {
  parts.secretSlot.replaceChildren();
}

/**
 * A secret shown once: read-only values with a Copy button each, until "Done" or the section's next refresh
 * removes them from the page.
 */
export function showSecret(parts: Parts, title: string, values: readonly SecretValue[], notes: readonly Child[] = []): void {
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
      notes.map((note) => h('p', {}, note)),
      h('p', {}, h('button', { type: 'button', onclick: done }, 'Done')),
    ),
  );
  heading.focus();
}

/** One value with its Copy button and where "Copied" is said. */
function secretValue(value: SecretValue): HTMLElement {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const copy = (control: HTMLElement) =>
    h('button', { type: 'button', onclick: () => copyText(value.text, control, status) }, 'Copy', hidden(` ${value.label.toLowerCase()}`));
  if (value.block) {
    const pre = h('pre', { class: 'value', tabIndex: 0 }, value.text);
    return h('figure', { class: 'secret-value' }, h('figcaption', {}, value.label), pre, h('p', {}, copy(pre), ' ', status));
  }
  const input = h('input', { type: 'text', class: 'value', readOnly: true, value: value.text, spellcheck: false, autocomplete: 'off' });
  return h('div', { class: 'secret-value' }, field(value.label, input), h('p', {}, copy(input), ' ', status));
}

async function copyText(text: string, control: HTMLElement, status: HTMLElement): Promise<void> {
  status.textContent = '';
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin, a refused permission): select it for Ctrl+C instead.
    selectContents(control);
    status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy';
  }
}

function selectContents(control: HTMLElement): void {
  control.focus();
  if (control instanceof HTMLInputElement) return control.select();
  const range = document.createRange();
  range.selectNodeContents(control);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}
