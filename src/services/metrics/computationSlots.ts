import { DomainError } from '../../errors';

/** What a client is told to wait when every slot and every place in line is taken: a computation takes seconds at most. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * At most `running` figures computed at once in this process, and at most `waiting` more in line behind them; a
 * request past both is answered 503 with Retry-After at once. Each computation holds rows and connections, so
 * without a bound a burst of different windows (each its own cache key) makes the heap grow with the burst
 * until the process dies; a queue without a bound would only move that growth into the queue.
 */
export class ComputationSlots {
  private running = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly waitingLimit: number,
    /** Told of each request refused for want of a turn (the Prometheus counter an operator watches). */
    private readonly onRefused?: () => void,
  ) {}

  async run<T>(compute: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await compute();
    } finally {
      this.give();
    }
  }

  /** Computations running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.line.length };
  }

  private take(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    if (this.line.length >= this.waitingLimit) {
      this.onRefused?.();
      throw busy();
    }
    return new Promise((resolve) => this.line.push(resolve));
  }

  /** A slot given back passes to the first in line, so `running` never drops below the line's need. */
  private give(): void {
    const next = this.line.shift();
    if (next) next();
    else this.running--;
  }
}

const busy = () =>
  new DomainError('unavailable', `Too many figures are being computed at the moment; ask again in ${BUSY_RETRY_AFTER_SECONDS} seconds`, {
    retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
  });
