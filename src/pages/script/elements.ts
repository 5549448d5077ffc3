/** What an element may hold: text (always as text nodes, never as markup), nodes, or lists of them. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Listener = (event: Event) => void;
type Props = Record<string, string | number | boolean | Listener | null | undefined>;

/**
 * An element with properties, attributes and children. Keys with a dash (aria-*, data-*), `role`, `for` and `list` are
 * attributes; `on…` keys are listeners; the rest are properties.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, props?: Props, ...children: Child[]): HTMLElement;
export function h(tag: string, props: Props = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = String(value);
    // Attributes with no writable property of that name (an input's `list` is a read-only reference to its datalist).
    else if (key.includes('-') || key === 'role' || key === 'for' || key === 'list') {
      if (value !== false) node.setAttribute(key, value === true ? '' : String(value));
    } else Object.assign(node, { [key]: value });
  }
  node.append(...nodesOf(children));
  return node;
}

function nodesOf(children: readonly Child[]): (Node | string)[] {
  return children.flatMap((child): (Node | string)[] => {
    if (child === undefined || child === null || child === false || child === '') return [];
    if (typeof child === 'string' || typeof child === 'number') return [String(child)];
    if (child instanceof Node) return [child];
    return nodesOf(child);
  });
}

export const hidden = (text: string) => h('span', { class: 'visually-hidden' }, text);

/** The one element the page's markup has for `selector`; its absence is a mistake in the page, said at once. */
export function $<E extends Element = HTMLElement>(selector: string, root: ParentNode = document): E {
  const found = root.querySelector<E>(selector);
  if (!found) throw new Error(`The page has no ${selector}`);
  return found;
}

let idCounter = 0;
export const nextId = (prefix: string) => `${prefix}-${++idCounter}`;

export function when(iso: string | null | undefined, none?: string): Child {
  if (!iso) return none;
  const date = new Date(iso);
  return h('time', { dateTime: iso, title: iso }, date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
}

/** A table whose cells carry their column's name, which the narrow layout shows beside each value. */
export function table(caption: string, columns: readonly string[], rows: readonly Child[][]): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { 'data-label': columns[i] }, cell))))),
  );
}

export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  control.id = control.id || nextId('field');
  let hintNode: HTMLElement | null = null;
  if (hint) {
    hintNode = h('span', { class: 'hint', id: `${control.id}-hint` }, hint);
    control.setAttribute('aria-describedby', hintNode.id);
  }
  return h('p', { class: 'field' }, h('label', { for: control.id }, label), control, hintNode);
}

export function checkboxes(legend: string, hint: string, name: string, choices: readonly { value: string; label: string }[]): HTMLElement {
  return h(
    'fieldset',
    {},
    h('legend', {}, legend),
    hint ? h('p', { class: 'hint' }, hint) : null,
    h('div', { class: 'choices' }, choices.map((c) => h('label', { class: 'choice' }, h('input', { type: 'checkbox', name, value: c.value }), ' ', c.label))),
  );
}

export const checkedValues = (form: HTMLFormElement, name: string) =>
  Array.from(form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`), (input) => input.value);

/** The value of the form's field (input or select) named `name`. */
export function valueOf(form: HTMLFormElement, name: string): string {
  const control = form.elements.namedItem(name);
  if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement) return control.value;
  throw new Error(`The form has no field ${name}`);
}
