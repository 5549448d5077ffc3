/**
 * How many request-body bytes a surface (ingest, OTLP) holds at once in this process. A body reserves its declared
 * length before it is read (`reserve`) and takes what it reads beyond that as it arrives (`take`); everything is
 * given back when it is answered. A reservation that would exceed the budget waits its turn (first come, first
 * served) for up to `maxWaitMs`. Parsing a body takes several times its size in memory, so without this a few
 * concurrent maximum-size bodies would exhaust the heap.
 *
 * A holder (a client address) may hold at most `share` bytes at once: one client's slow uploads cannot take the
 * whole budget. A reservation waiting only for its own holder's share holds nobody else up.
 */
export class BodyBudget {
  private inUse = 0;
  private readonly byHolder = new Map<string, number>();
  private readonly waiting: Reservation[] = [];

  constructor(
    readonly capacity: number,
    readonly share: number = capacity,
  ) {}

  /** Resolves with a release function once `bytes` are reserved; undefined when `maxWaitMs` passed first. */
  async reserve(bytes: number, maxWaitMs: number, holder?: string): Promise<(() => void) | undefined> {
    const entry: Reservation = { bytes: this.amount(bytes, holder), holder, grant: () => {} };
    if (this.fits(entry) && !this.waiting.some((w) => this.withinShare(w))) return this.hold(entry);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        resolve(undefined);
        this.grantWaiting();
      }, maxWaitMs);
      entry.grant = () => {
        clearTimeout(timer);
        resolve(this.hold(entry));
      };
      this.waiting.push(entry);
    });
  }

  /**
   * `bytes` more for a body already being read, at once or not at all: it goes ahead of the reservations waiting,
   * which may be waiting for what it holds (queued behind them, neither would move until one timed out).
   */
  take(bytes: number, holder?: string): (() => void) | undefined {
    const entry: Reservation = { bytes: this.amount(bytes, holder), holder, grant: () => {} };
    return this.fits(entry) ? this.hold(entry) : undefined;
  }

  get reserved(): number {
    return this.inUse;
  }

  /** What `holder` holds now. */
  heldBy(holder: string): number {
    return this.byHolder.get(holder) ?? 0;
  }

  /** A body larger than the capacity (or a holder's share) takes all of it, so it can still be read alone. */
  private amount(bytes: number, holder: string | undefined): number {
    return Math.min(Math.max(bytes, 0), this.capacity, holder === undefined ? this.capacity : this.share);
  }

  private withinShare(entry: Reservation): boolean {
    return entry.holder === undefined || this.heldBy(entry.holder) + entry.bytes <= this.share;
  }

  private fits(entry: Reservation): boolean {
    return this.inUse + entry.bytes <= this.capacity && this.withinShare(entry);
  }

  private hold({ bytes, holder }: Reservation): () => void {
    this.inUse += bytes;
    if (holder !== undefined) this.byHolder.set(holder, this.heldBy(holder) + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= bytes;
      if (holder !== undefined) {
        const left = this.heldBy(holder) - bytes;
        if (left > 0) this.byHolder.set(holder, left);
        else this.byHolder.delete(holder);
      }
      this.grantWaiting();
    };
  }

  /** In order: those waiting for their own holder's share are passed over; the first waiting for the capacity stops the walk. */
  private grantWaiting(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const entry = this.waiting[i];
      if (!this.withinShare(entry)) {
        i++;
        continue;
      }
      if (this.inUse + entry.bytes > this.capacity) return;
      this.waiting.splice(i, 1);
      entry.grant();
    }
  }
}

interface Reservation {
  bytes: number;
  holder: string | undefined;
  grant: () => void;
}
