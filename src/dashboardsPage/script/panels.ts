import { h, table } from '../../pages/script/elements';
import { draw } from './charts';
import type { Panel } from './answers';
import { formatted, numberAt, valueAt } from './figures';

/** A metric's answer for a panel, or why there is none (the API's refusal, said as it is). */
export type Figures = { data: unknown } | { failure: string };

/** A figure in a table cell: as read, and as given (`data-value`: what tests and copying compare). */
const cell = (value: number | null, text: string) => h('span', { 'data-value': String(value) }, text);

const currencyOf = (data: unknown) => {
  const currency = valueAt(data, 'currency');
  return typeof currency === 'string' ? currency : 'USD';
};

/** A panel as a card: its title, then its number, chart or table; a refusal or an empty answer said in words. */
export function panelCard(panel: Panel, figures: Figures): HTMLElement {
  const card = h('section', { class: `panel-card panel-${panel.chart}`, 'aria-label': panel.title }, h('h2', {}, panel.title));
  if ('failure' in figures) {
    card.append(h('p', { class: 'panel-failure' }, `Not available: ${figures.failure}`));
    return card;
  }
  card.append(...content(panel, figures.data));
  return card;
}

function content(panel: Panel, data: unknown): HTMLElement[] {
  const unit = (value: number | null) => formatted(value, panel.unit, currencyOf(data));
  switch (panel.chart) {
    case 'number': {
      const band = panel.band ? valueAt(data, panel.band) : null;
      return [
        h('p', { class: 'panel-number', 'data-value': String(numberAt(data, panel.figure)) }, unit(numberAt(data, panel.figure))),
        typeof band === 'string' ? h('p', { class: `band band-${band}` }, `DORA band: ${band}`) : h('span', {}),
      ];
    }
    case 'table': {
      const rows = valueAt(data, panel.rows);
      if (!Array.isArray(rows)) return [h('p', { class: 'muted' }, 'Shown to the organization’s admins and the team’s managers only.')];
      if (rows.length === 0) return [h('p', { class: 'empty' }, 'Nothing in this window.')];
      return [
        table(
          panel.title,
          ['', ...panel.columns.map((c) => c.label)],
          rows.map((row) => [String(valueAt(row, panel.label) ?? ''), ...panel.columns.map((c) => cell(numberAt(row, c.figure), unit(numberAt(row, c.figure))))]),
        ),
      ];
    }
    default:
      return seriesChart(panel, data, unit);
  }
}

/** A chart over the answer's series, and the same numbers as a table (for screen readers, and to copy). */
function seriesChart(panel: Extract<Panel, { series: unknown }>, data: unknown, unit: (value: number | null) => string): HTMLElement[] {
  const series = valueAt(data, 'series');
  if (!Array.isArray(series) || series.length === 0) return [h('p', { class: 'empty' }, 'Choose an interval to see this figure period by period.')];
  const labels = series.map((bucket) => String(valueAt(bucket, 'start')));
  const lines = panel.series.map((line) => ({ label: line.label, values: series.map((bucket) => numberAt(bucket, line.figure)) }));
  const canvas = h('canvas', { role: 'img', 'aria-label': `${panel.title}: ${lines.map((l) => l.label).join(', ')} by period; the numbers are in the table below` });
  const holder = h('div', { class: 'chart' }, canvas);
  // Drawn once the card is in the page and has its size.
  requestAnimationFrame(() => draw(canvas, { kind: panel.chart, labels, lines }));
  const numbers = table(
    `${panel.title}, by period`,
    ['Period', ...lines.map((l) => l.label)],
    labels.map((label, i) => [label, ...lines.map((l) => cell(l.values[i], unit(l.values[i])))]),
  );
  return [holder, h('details', { class: 'numbers' }, h('summary', {}, 'Numbers'), numbers)];
}
