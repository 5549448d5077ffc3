import type { z } from 'zod';
import type { ActivityMetrics, AiUsageMetrics, DoraMetrics, FlowMetrics, PullRequestMetrics } from '../../resources/metrics';
import type { AiImpactMetrics } from '../../resources/aiImpactMetrics';
import type { CollaborationMetrics } from '../../resources/collaborationMetrics';
import type { FinancialMetrics } from '../../resources/financialMetrics';

/**
 * What a dashboard's panel draws: figures of one Metrics API answer (docs/dashboards.md), named by their paths in it,
 * so that a panel's numbers are the API's for the same scope and window. The paths are typed by the metrics'
 * schemas: a renamed figure fails the build.
 */
interface MetricAnswers {
  dora: z.infer<typeof DoraMetrics>;
  'pull-requests': z.infer<typeof PullRequestMetrics>;
  flow: z.infer<typeof FlowMetrics>;
  activity: z.infer<typeof ActivityMetrics>;
  collaboration: z.infer<typeof CollaborationMetrics>;
  'ai-usage': z.infer<typeof AiUsageMetrics>;
  'ai-impact': z.infer<typeof AiImpactMetrics>;
  financial: z.infer<typeof FinancialMetrics>;
}
export type MetricName = keyof MetricAnswers;
export const METRIC_NAMES = ['dora', 'pull-requests', 'flow', 'activity', 'collaboration', 'ai-usage', 'ai-impact', 'financial'] as const satisfies readonly MetricName[];

/** Dotted paths to the numbers of T (nested objects; not into lists). */
type NumberPaths<T, Prefix extends string = ''> = T extends number
  ? Prefix
  : T extends readonly unknown[]
    ? never
    : T extends object
      ? { [K in keyof T & string]-?: NumberPaths<NonNullable<T[K]>, Prefix extends '' ? K : `${Prefix}.${K}`> }[keyof T & string]
      : never;
/** The keys of T that hold lists of objects, and the item of each. */
type ListKeys<T> = { [K in keyof T & string]-?: NonNullable<T[K]> extends readonly (infer I)[] ? (I extends object ? K : never) : never }[keyof T & string];
type ItemOf<T, K extends keyof T> = NonNullable<T[K]> extends readonly (infer I)[] ? I : never;
/** The keys of T whose values are strings: what names a table's row. */
type StringKeys<T> = { [K in keyof T & string]-?: T[K] extends string ? K : never }[keyof T & string];
type SeriesItem<M extends MetricName> = 'series' extends keyof MetricAnswers[M] ? ItemOf<MetricAnswers[M], 'series' & keyof MetricAnswers[M]> : never;

/** How a figure reads: the page formats and labels its axis by it. */
export type Unit = 'count' | 'hours' | 'ratio' | 'per_day' | 'usd' | 'money' | 'fte' | 'index' | 'lines';

/** One drawn figure, with the label its line, bar or cell carries. */
interface Figure<Path extends string> {
  label: string;
  figure: Path;
}

export type Panel = {
  [M in MetricName]:
    | { metric: M; title: string; unit: Unit; chart: 'number'; figure: NumberPaths<MetricAnswers[M]>; band?: NumberPaths<MetricAnswers[M]> | BandPath<M> }
    | ([NumberPaths<SeriesItem<M>>] extends [never] ? never : { metric: M; title: string; unit: Unit; chart: 'line' | 'bar' | 'stacked_bar'; series: Figure<NumberPaths<SeriesItem<M>>>[] })
    | {
        [L in ListKeys<MetricAnswers[M]>]: { metric: M; title: string; unit: Unit; chart: 'table'; rows: L; label: StringKeys<ItemOf<MetricAnswers[M], L>>; columns: Figure<NumberPaths<ItemOf<MetricAnswers[M], L>>>[] };
      }[ListKeys<MetricAnswers[M]>];
}[MetricName];

/** DORA's bands are strings beside the figure they rate. */
type BandPath<M extends MetricName> = M extends 'dora' ? `${'deployment_frequency' | 'lead_time_for_changes' | 'change_failure_rate' | 'time_to_restore' | 'rework_rate'}.band` : never;

export type ChartKind = Panel['chart'];
