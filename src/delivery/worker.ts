import type { Logger } from '../logger';
import type { AttemptVerdict, DeliveryQueue, DueDelivery, LeasedEndpoint, QueueStats } from '../services/webhooks/deliveryQueue';
import { messageBody, signedHeaders } from './message';
import type { OutboundPolicy } from '../outbound/outboundFetch';
import { postMessage } from './sender';

export interface WorkerOptions {
  timeoutMs: number;
  /** Where deliveries may go (outboundPolicy of the configuration). */
  outbound: OutboundPolicy;
  /** Endpoints served at once by this process. */
  concurrency?: number;
  /** How often to look for due deliveries when nothing wakes the worker sooner. */
  pollMs?: number;
  /** How often the queue's figures are refreshed for /readyz, and logged when anything happened. */
  statsMs?: number;
  /** Told how each attempt ended (the service's metrics count them). */
  onAttempt?: (result: AttemptVerdict['kind']) => void;
}

export interface WorkerStatus {
  running: boolean;
  /** Since this process started. */
  delivered: number;
  failed_attempts: number;
  gave_up: number;
  endpoints_disabled: number;
  /** The queue, across instances, as of `as_of`. */
  pending?: number;
  due?: number;
  lag_seconds?: number;
  as_of?: string;
}

/** Deliveries per endpoint read at a time: small enough that a lease's batch finishes long before it expires. */
const BATCH = 20;

/**
 * Sends outgoing webhooks (docs/webhooks.md). Runs inside each API process and as `npm run worker`: claims endpoints with
 * due deliveries from the queue, sends each one's deliveries in order, one at a time, and records every attempt.
 * A process stopping finishes the attempts in flight and gives its endpoints back.
 */
export class DeliveryWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly serving = new Set<Promise<void>>();
  private wakeUp?: () => void;
  /** A wake-up that came while the worker was busy: the next sleep is skipped. */
  private woken = false;
  private readonly counts = { delivered: 0, failed_attempts: 0, gave_up: 0, endpoints_disabled: 0 };
  private logged = { ...this.counts };
  private stats?: QueueStats & { at: Date };
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly statsMs: number;
  /** A lease outlives two timed-out attempts, so a live holder always records before it could expire. */
  private readonly leaseMs: number;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.pollMs = options.pollMs ?? 1_000;
    this.statsMs = options.statsMs ?? 10_000;
    this.leaseMs = 2 * options.timeoutMs + 5_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks for due deliveries now (a change on this instance just queued some). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Claims nothing more, lets the attempts in flight finish and record, and releases the endpoints. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all([...this.serving]);
  }

  status(): WorkerStatus {
    const queue = this.stats && {
      pending: this.stats.pending,
      due: this.stats.due,
      lag_seconds: Math.round(this.stats.lagMs / 1000),
      as_of: this.stats.at.toISOString(),
    };
    return { running: this.running, ...this.counts, ...queue };
  }

  private async run(): Promise<void> {
    let statsAt = 0;
    while (this.running) {
      try {
        const free = this.concurrency - this.serving.size;
        if (free > 0) {
          const now = new Date();
          for (const endpoint of await this.queue.claim(free, now, new Date(now.getTime() + this.leaseMs))) this.serveInBackground(endpoint);
        }
        if (Date.now() - statsAt >= this.statsMs) {
          statsAt = Date.now();
          await this.refreshStats();
        }
      } catch (err) {
        this.logger.warn({ err }, 'webhooks: could not claim deliveries; trying again');
      }
      await this.sleep();
    }
  }

  private serveInBackground(endpoint: LeasedEndpoint): void {
    const serving: Promise<void> = this.serve(endpoint).finally(() => {
      this.serving.delete(serving);
      this.wake();
    });
    this.serving.add(serving);
  }

  private async serve(endpoint: LeasedEndpoint): Promise<void> {
    try {
      for (let due = await this.queue.due(endpoint.id, new Date(), BATCH); due.length; due = await this.queue.due(endpoint.id, new Date(), BATCH)) {
        for (const delivery of due) {
          if (!this.running || !(await this.attempt(endpoint, delivery))) return;
        }
      }
    } catch (err) {
      this.logger.warn({ err, endpoint: endpoint.id }, 'webhooks: endpoint left mid-batch; its deliveries will be sent again');
    } finally {
      await this.queue.release(endpoint, new Date()).catch((err: unknown) => this.logger.warn({ err, endpoint: endpoint.id }, 'webhooks: could not release an endpoint; its lease will expire'));
    }
  }

  /** One POST, recorded. False when this worker must stop serving the endpoint (lease lost, endpoint disabled). */
  private async attempt(endpoint: LeasedEndpoint, delivery: DueDelivery): Promise<boolean> {
    const attemptedAt = new Date();
    const body = messageBody(delivery.event);
    const headers = signedHeaders(delivery.event.id, body, endpoint.secrets, attemptedAt);
    const sent = await postMessage(endpoint.url, body, headers, this.options);
    const attempt = { ...sent, attemptedAt };
    const now = new Date();
    const verdict = this.queue.verdict(endpoint, delivery, attempt, now);
    const kept = await this.queue.record(endpoint, delivery, attempt, verdict, now, new Date(now.getTime() + this.leaseMs));
    this.count(endpoint, delivery, attempt, verdict);
    return kept;
  }

  private count(endpoint: LeasedEndpoint, delivery: DueDelivery, attempt: { statusCode: number | null; error: string | null; durationMs: number }, verdict: AttemptVerdict): void {
    this.options.onAttempt?.(verdict.kind);
    const fields = { endpoint: endpoint.id, delivery: delivery.id, event: delivery.event.type, attempt: delivery.attempts + 1, status: attempt.statusCode, ms: attempt.durationMs };
    if (verdict.kind === 'delivered') {
      this.counts.delivered++;
      this.logger.debug(fields, 'webhook delivered');
      return;
    }
    this.counts.failed_attempts++;
    if (verdict.kind === 'retry') this.logger.warn({ ...fields, error: attempt.error, retry_at: verdict.at.toISOString() }, 'webhook attempt failed; will retry');
    if (verdict.kind === 'gave_up') {
      this.counts.gave_up++;
      this.logger.warn({ ...fields, error: attempt.error }, 'webhook delivery failed for good: its retries are spent (replay it with "webhooks replay")');
    }
    if (verdict.kind === 'endpoint_disabled') {
      this.counts.endpoints_disabled++;
      this.logger.warn({ ...fields, error: attempt.error, reason: verdict.reason }, 'webhook endpoint disabled');
    }
  }

  private async refreshStats(): Promise<void> {
    const now = new Date();
    this.stats = { ...(await this.queue.stats(now)), at: now };
    const sinceLast = diff(this.counts, this.logged);
    const changed = Object.values(sinceLast).some((n) => n !== 0);
    if (changed || this.stats.lagMs > 60_000) {
      this.logger.info({ ...this.status(), since_last: sinceLast }, 'webhook deliveries');
      this.logged = { ...this.counts };
    }
  }

  private sleep(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.wakeUp = done;
    });
  }
}

function diff<T extends Record<string, number>>(now: T, before: T): Record<string, number> {
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k]]));
}
