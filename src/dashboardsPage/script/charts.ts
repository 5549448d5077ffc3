import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';

// Only what the panels draw: line and bar charts (stacked or not) over periods. Chart.js tree-shakes the rest.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

/** Colours told apart by people with the common colour-vision deficiencies (Okabe and Ito's palette). */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];

export interface Drawn {
  kind: 'line' | 'bar' | 'stacked_bar';
  labels: string[];
  lines: { label: string; values: (number | null)[] }[];
}

/** A canvas that holds its chart, whose own data a reader (or a test) may compare with the table beside it. */
export interface ChartCanvas extends HTMLCanvasElement {
  chart?: Chart;
}

/** Draws the figures on the canvas; the chart's own data holds the same numbers. */
export function draw(canvas: ChartCanvas, drawn: Drawn): Chart {
  const stacked = drawn.kind === 'stacked_bar';
  canvas.chart = new Chart(canvas, {
    type: drawn.kind === 'line' ? 'line' : 'bar',
    data: {
      labels: drawn.labels,
      datasets: drawn.lines.map((line, i) => ({
        label: line.label,
        data: line.values,
        backgroundColor: COLOURS[i % COLOURS.length],
        borderColor: COLOURS[i % COLOURS.length],
        spanGaps: false,
      })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      // The table beside it says the same; motion helps no one here.
      animation: false,
      scales: { x: { stacked }, y: { stacked, beginAtZero: true } },
      plugins: { legend: { position: 'bottom' } },
    },
  });
  return canvas.chart;
}
