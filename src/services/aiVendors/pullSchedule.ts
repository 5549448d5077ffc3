import { Op } from 'sequelize';
import { AiVendorSource, App } from '../../../db/models';
import { DomainError } from '../../errors';
import { Periodic } from '../periodic';
import type { Day } from './vendorDay';
import { daysBetween, PullOutcome, VendorPulls } from './vendorPulls';

const DAY_MS = 86_400_000;
/** A new app's first pull reaches this many days back (`npm run import -- ai` backfills further). */
const FIRST_DAYS = 28;
/** Days before the last one stored that each pull asks again: GitHub's reports settle within three full UTC days. */
const SETTLING_DAYS = 4;
/** An app pulled less than this long ago waits for the next tick. */
const PULLED_RECENTLY_MS = 20 * 3_600_000;

export interface PullScheduleOptions {
  /** Between two ticks; the first comes two minutes after start. */
  intervalMs?: number;
  onPulled(outcome: PullOutcome): void;
  /** A pull that failed unexpectedly (its app's id), or a tick that could not read the due apps (null). */
  onError(err: unknown, appId: string | null): void;
}

/** The UTC day `days` before `day`. */
const dayBefore = (day: Day, days: number): Day => new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/**
 * The days an app's daily pull asks for (docs/ai-vendors.md#the-daily-pull): from a few days before the last one stored
 * (late and corrected reports), or a new app's last four weeks, to yesterday, the last whole UTC day.
 */
export function dueDays(pulledThrough: Day | null, now: Date): Day[] {
  const yesterday = new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10);
  const since = pulledThrough === null ? dayBefore(yesterday, FIRST_DAYS - 1) : dayBefore(pulledThrough, SETTLING_DAYS - 1);
  const earliest = dayBefore(yesterday, 365);
  return daysBetween(since < earliest ? earliest : since, yesterday);
}

/**
 * Pulls every enabled AI vendor's app once a day (docs/ai-vendors.md#the-daily-pull), on each process that runs it (the
 * API's instances, `npm run worker`): a tick an hour takes the apps not pulled for 20 hours, not failing and not
 * held by another pull, one after another. An app whose lease another process holds is skipped: that process pulls
 * it. An app whose credential the vendor refused waits for a new one; the other apps are pulled as usual.
 */
export class VendorPullSchedule {
  private readonly periodic: Periodic;

  constructor(
    private readonly pulls: VendorPulls,
    private readonly options: PullScheduleOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    // A tick that cannot even read the due apps (the database away) is told, and the next one tries again.
    this.periodic = new Periodic(() => this.runDue().catch((err) => this.options.onError(err, null)), 120_000, options.intervalMs ?? 3_600_000);
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One tick: each due app pulled over its due days; what happened told to the options' callbacks. */
  async runDue(): Promise<PullOutcome[]> {
    const now = this.now();
    const due = await AiVendorSource.findAll({
      where: {
        failing: false,
        // An app without a credential (the demo's) waits for one.
        credential: { [Op.ne]: null },
        [Op.and]: [
          { [Op.or]: [{ pulled_at: null }, { pulled_at: { [Op.lt]: new Date(now.getTime() - PULLED_RECENTLY_MS) } }] },
          { [Op.or]: [{ lease_until: null }, { lease_until: { [Op.lt]: now } }] },
        ],
      },
      attributes: ['app_id', 'pulled_through'],
      order: [['app_id', 'ASC']],
    });
    const enabled = new Set(due.length ? (await App.findAll({ where: { id: due.map((s) => s.app_id), is_active: true }, attributes: ['id'] })).map((a) => a.id) : []);
    const outcomes: PullOutcome[] = [];
    for (const source of due.filter((s) => enabled.has(s.app_id))) {
      try {
        const outcome = await this.pulls.pull(source.app_id, dueDays(source.pulled_through, now));
        outcomes.push(outcome);
        this.options.onPulled(outcome);
      } catch (err) {
        // Another process took it meanwhile, or it was disabled: not this tick's to pull.
        if (!(err instanceof DomainError)) this.options.onError(err, source.app_id);
      }
    }
    return outcomes;
  }
}
