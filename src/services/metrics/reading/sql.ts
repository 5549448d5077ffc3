import { QueryTypes, Sequelize } from 'sequelize';
import { DAY_MS, day, MetricWindow, weekOffset } from './window';
import { MetricScope, scopeCondition, ScopedBy, scopeReplacements } from './scope';
import { timestampSql } from '../../../persistence/query/selectSql';
import { DomainError } from '../../../errors';
import { AppliedMetricSettings, DEFAULT_APPLIED, environmentCondition, productionCondition } from '../settings/document';
import { incidentCondition } from '../settings/incidents';
import { peopleOnly } from '../../../../db/rollups/botAccounts';
import { MONTH_COLUMNS } from '../../../../db/rollups/aiActiveYears';
import { ALL_DAYS, dayBit } from '../../activity/dayBits';
import { changeFailureSql } from '../settings/changeFailure';

/**
 * The few SQL expressions metrics need that MySQL/MariaDB and SQLite spell differently, and the nearest-rank
 * percentile query both run alike (window functions). Columns and integers are ours; values go in as named
 * replacements, never into the text.
 */
export type BucketOf = (column: string) => string;

/** Percentiles in hundredths: 50, 75, 90. */
export type Percentile = 50 | 75 | 90;

export interface Distribution {
  n: number;
  /** Nearest-rank: the value at rank ⌈p·n/100⌉ of the sorted sample; null for an empty one. */
  at: Record<Percentile, number | null>;
}

export class MetricSql {
  readonly mysql: boolean;

  constructor(
    private readonly sequelize: Sequelize,
    readonly scope: MetricScope,
    readonly window: MetricWindow,
    readonly now: Date,
    private readonly timeoutMs?: number,
    /** The organization's settings of what counts (settings/document.ts), read once for the whole answer. */
    readonly settings: AppliedMetricSettings = DEFAULT_APPLIED,
  ) {
    this.mysql = sequelize.getDialect() === 'mysql';
  }

  /** The same window, "now", time limit and settings over another scope (the teams of an adoption tier: adoptionTiers.ts). */
  over(scope: MetricScope): MetricSql {
    return new MetricSql(this.sequelize, scope, this.window, this.now, this.timeoutMs, this.settings);
  }

  /**
   * The rows of `alias` whose `environment` is a production environment, as the organization's settings name them
   * for the row's repository (`repositoryColumn`: a repository with its own list is read by it).
   */
  production(alias: string, repositoryColumn = 'repository_id'): string {
    return productionCondition(this.settings.settings, `${alias}.environment`, `${alias}.${repositoryColumn}`).sql;
  }

  /** The same by the organization's list alone, whatever the repository (an organization's rollup rows hold every repository's). */
  organizationProduction(alias: string): string {
    return environmentCondition(this.settings.settings.production_environments, `${alias}.environment`).sql;
  }

  /** The repositories with production environments of their own (`:production_overridden` in the statements). */
  get productionOverridden(): string[] {
    return Object.keys(this.settings.settings.repository_production_environments);
  }

  /** The incidents of `alias` that count in time to restore, by the organization's settings (settings/incidents.ts). */
  incidents(alias: string): string {
    return incidentCondition(this.settings.settings, alias).sql;
  }

  /**
   * The deployments of `alias` that are change failures by the organization's settings (settings/changeFailure.ts),
   * and when each was restored (`restoredAt`: null while it has not been, and for the others).
   */
  changeFailure(alias: string): { failed: string; restoredAt: string } {
    const { failed, restoredAt } = changeFailureSql(this.settings.settings.change_failure, alias, (a, b) => this.hours(a, b));
    return { failed, restoredAt };
  }

  /** The rows of `alias` (pull requests, their activity, samples and counts) that are no bot's under the settings in force (settings/bots.ts). */
  people(alias: string): string {
    return peopleOnly(alias, this.settings.botsGeneration);
  }

  /** The scope's rows of a table aliased `alias` (scope.ts). */
  scoped(alias: string, by: ScopedBy): string {
    return scopeCondition(this.scope, alias, by);
  }

  /** Hours from `a` to `b` (timestamp expressions). */
  hours(a: string, b: string): string {
    return this.hoursOfSpan(this.span(a, b));
  }

  /**
   * The time from `a` to `b`, ordered as its hours are: on MySQL/MariaDB whole microseconds, which sort and
   * keep cheaper than the decimal hours they divide into, so that a sample is ranked on them and only the
   * percentiles picked are turned into hours (`hoursOfSpan`), the same hours `hours` gives; on SQLite its hours.
   */
  span(a: string, b: string): string {
    return this.mysql ? `TIMESTAMPDIFF(MICROSECOND, ${a}, ${b})` : `((julianday(${b}) - julianday(${a})) * 24)`;
  }

  /** The hours of a `span`. */
  hoursOfSpan(span: string): string {
    return this.mysql ? `(${span} / 3600000000)` : span;
  }

  /** `column` starts with the value of `prefix` (an abbreviated sha names the commit it abbreviates). */
  startsWith(column: string, prefix: string): string {
    return this.mysql ? `LEFT(${column}, CHAR_LENGTH(${prefix})) = ${prefix}` : `substr(${column}, 1, length(${prefix})) = ${prefix}`;
  }

  /**
   * A join that reads its left side first (MariaDB's STRAIGHT_JOIN, SQLite's CROSS JOIN), where the planner would
   * otherwise start from the larger table because it cannot estimate a derived one.
   */
  get joinInOrder(): string {
    return this.mysql ? 'STRAIGHT_JOIN' : 'CROSS JOIN';
  }

  /** Every row in bucket 0: the window's totals. */
  readonly whole: BucketOf = () => '0';

  /** The index of the series bucket a timestamp column falls in (window.ts `bucketsOf` lists them). */
  readonly series: BucketOf = (column) => {
    const days = this.mysql ? `DATEDIFF(${column}, :window_from_day)` : `CAST(julianday(date(${column})) - julianday(:window_from_day) AS INTEGER)`;
    switch (this.window.interval) {
      case 'week':
        return this.mysql ? `((${days} + ${weekOffset(this.window)}) DIV 7)` : `((${days} + ${weekOffset(this.window)}) / 7)`;
      case 'month': {
        const [y, m] = [this.window.from.getUTCFullYear(), this.window.from.getUTCMonth() + 1];
        return this.mysql
          ? `((YEAR(${column}) - ${y}) * 12 + MONTH(${column}) - ${m})`
          : `((CAST(strftime('%Y', ${column}) AS INTEGER) - ${y}) * 12 + CAST(strftime('%m', ${column}) AS INTEGER) - ${m})`;
      }
      default:
        return days;
    }
  };

  /** How many bits of a non-negative 32-bit integer are set (SQLite has no BIT_COUNT: the usual SWAR sum). */
  popcount(expr: string): string {
    if (this.mysql) return `BIT_COUNT(${expr})`;
    const v1 = `(${expr} - ((${expr} >> 1) & 1431655765))`;
    const v2 = `((${v1} & 858993459) + ((${v1} >> 2) & 858993459))`;
    const v3 = `((${v2} + (${v2} >> 4)) & 252645135)`;
    return `(((${v3} * 16843009) & 4294967295) >> 24)`;
  }

  /**
   * The window's first and last months (`YYYY-MM`) and, as day bit sets (bit d - 1: day d), the days of the first
   * month from the window's start on, and of the last month up to its end.
   */
  private windowMonths(): { m1: string; m2: string; fromBits: number; toBits: number } {
    const first = day(this.window.from);
    const last = day(new Date(this.window.before.getTime() - DAY_MS));
    return { m1: first.slice(0, 7), m2: last.slice(0, 7), fromBits: ALL_DAYS - (dayBit(first) - 1), toBits: 2 * dayBit(last) - 1 };
  }

  /**
   * Rows of a table kept a row a year with a column a month (`alias`: ai_active_years, db/rollups/aiActiveYears.ts;
   * member_active_years) within the window: `days`, how many of the row's days fall in it; `any`, non-zero when one
   * does. `bitsOf` gives a month's bits from its column's name (`m01` … `m12`); by default that column of `alias`.
   * Each year keeps its months in the window, the first and last cut to the window's days.
   */
  yearsInWindow(alias: string, bitsOf: (month: string) => string = (month) => `${alias}.${month}`): { where: string; days: string; any: string } {
    const { m1, m2, fromBits, toBits } = this.windowMonths();
    const [y1, y2] = [Number(m1.slice(0, 4)), Number(m2.slice(0, 4))];
    const termsOf = (year: number) =>
      MONTH_COLUMNS.flatMap((column, i) => {
        const month = `${year}-${String(i + 1).padStart(2, '0')}`;
        if (month < m1 || month > m2) return [];
        const mask = (month === m1 ? fromBits : ALL_DAYS) & (month === m2 ? toBits : ALL_DAYS);
        return [mask === ALL_DAYS ? bitsOf(column) : `(${bitsOf(column)} & ${mask})`];
      });
    const years = Array.from({ length: y2 - y1 + 1 }, (_, i) => y1 + i);
    const perYear = (of: (terms: string[]) => string) =>
      years.length === 1 ? of(termsOf(y1)) : `CASE ${alias}.year ${years.map((y) => `WHEN ${y} THEN ${of(termsOf(y))}`).join(' ')} ELSE 0 END`;
    return {
      where: `${alias}.year >= ${y1} AND ${alias}.year <= ${y2}`,
      days: perYear((terms) => `(${terms.map((t) => this.popcount(t)).join(' + ')})`),
      any: perYear((terms) => `(${terms.join(' | ')})`),
    };
  }

  /**
   * The rows of a daily rollup in the window, as a derived table with its `day` and `columns`: the window's whole
   * months read from the rollup's monthly sums (`month`: `YYYY-MM`, each row dated its first day) and only the days
   * at its edges from the daily rows, so a year is about a dozen months and a few dozen days. A daily or weekly
   * series, whose buckets are days, reads the days alone. `where` picks the scope's rows of either table by alias.
   */
  daysAndMonths(tables: { daily: string; monthly: string }, columns: readonly string[], where: (alias: string) => string): string {
    const of = (alias: string) => columns.map((c) => `${alias}.${c}`).join(', ');
    const days = (from: Date, before: Date) => `d.day >= '${day(from)}' AND d.day < '${day(before)}'`;
    const whole = wholeMonths(this.window);
    if (!whole || this.window.interval === 'day' || this.window.interval === 'week') {
      return `SELECT d.day AS day, ${of('d')} FROM ${tables.daily} d WHERE ${where('d')} AND ${days(this.window.from, this.window.before)}`;
    }
    const firstDay = this.mysql ? "CAST(CONCAT(m.month, '-01') AS DATE)" : "m.month || '-01'";
    return `SELECT d.day AS day, ${of('d')} FROM ${tables.daily} d
        WHERE ${where('d')} AND (${days(this.window.from, whole.from)} OR ${days(whole.before, this.window.before)})
      UNION ALL
      SELECT ${firstDay} AS day, ${of('m')} FROM ${tables.monthly} m WHERE ${where('m')} AND m.month >= '${whole.first}' AND m.month <= '${whole.last}'`;
  }

  /** A day column (`YYYY-MM-DD`) within the window. */
  inDays(column: string): string {
    return `${column} >= '${day(this.window.from)}' AND ${column} < '${day(this.window.before)}'`;
  }

  /** `column` within the window: [from, before). */
  inWindow(column: string): string {
    return `${column} >= ${this.at(this.window.from)} AND ${column} < ${this.at(this.window.before)}`;
  }

  /** The time of the request, as SQL. */
  get nowSql(): string {
    return this.at(this.now);
  }

  /** Before any commit: the lower bound of the changes a repository's first deployment shipped. */
  get epochSql(): string {
    return this.at(new Date(0));
  }

  /** A UTC day (`YYYY-MM-DD`, as DATEONLY columns hold it) of a timestamp expression. */
  dayOf(column: string): string {
    return this.mysql ? `DATE(${column})` : `date(${column})`;
  }

  /** A timestamp compared with stored ones, escaped as Sequelize escapes it for this dialect. */
  at(date: Date): string {
    return timestampSql(this.sequelize, date);
  }

  /**
   * Rows of a grouped query (`GROUP BY bucket`), numbers as numbers (MySQL sends sums and quotients as text);
   * `textColumns` stay text. `values`: named replacements of the query's own, beside the scope's.
   */
  async rows<T extends Record<string, number | string | null>>(sql: string, textColumns: readonly string[] = ['type'], values: Record<string, unknown> = {}): Promise<T[]> {
    const rows = await this.sequelize
      .query<T>(await this.timeLimited(sql), { type: QueryTypes.SELECT, replacements: { ...values, ...this.replacements(), ...scopeReplacements(this.scope) } })
      .catch((e: unknown) => {
        throw timedOut(e) ? tooSlow(this.timeoutMs!) : e;
      });
    // In place, column by column: a reviewer's counts are thousands of rows, converted on the thread that answers.
    const numeric = rows.length ? Object.keys(rows[0]).filter((k) => !textColumns.includes(k)) : [];
    for (const row of rows) {
      for (const k of numeric) {
        const v = row[k];
        if (v !== null && typeof v !== 'number') Reflect.set(row, k, Number(v));
      }
    }
    return rows;
  }

  /**
   * Per bucket, the sample's size and nearest-rank percentiles. `sample` selects `bucket` and `v`. The first
   * rank r with r·100 ≥ p·n is ⌈p·n/100⌉, so MIN over those ranks of the sorted values is the p-th percentile.
   */
  async distribution(sample: string): Promise<Map<number, Distribution>> {
    const rows = await this.rows<{ bucket: number; n: number; p50: number | null; p75: number | null; p90: number | null }>(
      `SELECT bucket, COUNT(*) AS n,
         MIN(CASE WHEN rn * 100 >= 50 * cnt THEN v END) AS p50,
         MIN(CASE WHEN rn * 100 >= 75 * cnt THEN v END) AS p75,
         MIN(CASE WHEN rn * 100 >= 90 * cnt THEN v END) AS p90
       FROM (SELECT bucket, v, ROW_NUMBER() OVER (PARTITION BY bucket ORDER BY v) AS rn, COUNT(*) OVER (PARTITION BY bucket) AS cnt
             FROM (${sample}) AS sample) AS ranked
       GROUP BY bucket`,
    );
    return new Map(rows.map((r) => [Number(r.bucket), { n: r.n, at: { 50: r.p50, 75: r.p75, 90: r.p90 } }]));
  }

  /**
   * The statement with the time limit, on MySQL/MariaDB: a figure that would hold a connection for minutes answers
   * 503 instead. MariaDB's `SET STATEMENT`, or MySQL's hint (MariaDB reads it as a comment). SQLite, embedded and
   * small, has none.
   */
  private async timeLimited(sql: string): Promise<string> {
    if (!this.mysql || !this.timeoutMs) return sql;
    if (await isMariaDb(this.sequelize)) return `SET STATEMENT max_statement_time=${this.timeoutMs / 1000} FOR ${sql}`;
    return sql.replace(/^\s*SELECT/, `SELECT /*+ MAX_EXECUTION_TIME(${this.timeoutMs}) */`);
  }

  private replacements(): Record<string, unknown> {
    return {
      window_from_day: day(this.window.from),
      ...productionCondition(this.settings.settings, 'environment', 'repository_id').replacements,
      production_overridden: this.productionOverridden.length ? this.productionOverridden : null,
      ...incidentCondition(this.settings.settings, 'i').replacements,
      ...changeFailureSql(this.settings.settings.change_failure, 'd', (a, b) => this.hours(a, b)).replacements,
    };
  }
}

/** The calendar months wholly inside the window: [from, before) as dates, first and last as `YYYY-MM`; none: undefined. */
function wholeMonths(window: MetricWindow): { from: Date; before: Date; first: string; last: string } | undefined {
  const { from, before } = window;
  const start = from.getUTCDate() === 1 ? from : new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
  const end = new Date(Date.UTC(before.getUTCFullYear(), before.getUTCMonth(), 1));
  if (start >= end) return undefined;
  return { from: start, before: end, first: day(start).slice(0, 7), last: day(new Date(end.getTime() - DAY_MS)).slice(0, 7) };
}

/** Asked once per connection pool: MariaDB and MySQL limit a statement's time in different words. */
const flavours = new WeakMap<Sequelize, Promise<boolean>>();
function isMariaDb(sequelize: Sequelize): Promise<boolean> {
  let known = flavours.get(sequelize);
  if (!known) {
    known = sequelize.query<{ version: string }>('SELECT VERSION() AS version', { type: QueryTypes.SELECT }).then(([row]) => /mariadb/i.test(row?.version ?? ''));
    flavours.set(sequelize, known);
  }
  return known;
}

/** MariaDB's max_statement_time exceeded (1969), MySQL's max_execution_time (3024). */
const timedOut = (e: unknown) => {
  // Sequelize's error keeps the driver's as `original`.
  const original = typeof e === 'object' && e !== null && 'original' in e ? e.original : undefined;
  const errno = typeof original === 'object' && original !== null && 'errno' in original ? original.errno : undefined;
  return errno === 1969 || errno === 3024;
};

const tooSlow = (timeoutMs: number) =>
  new DomainError('unavailable', `These figures took longer than ${timeoutMs / 1000} s to compute; ask for a shorter window (from, to) or try again later`, {
    retryAfterSeconds: 60,
  });

export const emptyDistribution: Distribution = { n: 0, at: { 50: null, 75: null, 90: null } };

/** Hours to two decimals: a sample value, so a median is one of the measured durations. */
export const roundHours = (hours: number | null): number | null => (hours === null ? null : Math.round(hours * 100) / 100);
