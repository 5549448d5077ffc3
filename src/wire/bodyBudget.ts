/**
 * How many request-body bytes a surface (ingest, OTLP) holds at once in this process. A delivery reserves its
 * Content-Length before its body is read and gives it back when answered; one that would exceed the budget waits
 * its turn (first come, first served) for up to `maxWaitMs`. Parsing a body takes several times its size in memory,
 * so without this a few concurrent maximum-size bodies would exhaust the heap.
 */
export class BodyBudget {
  private inUse = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly capacity: number) {}

  /** Resolves with a release function once `bytes` are reserved; undefined when `maxWaitMs` passed first. */
  async reserve(bytes: number, maxWaitMs: number): Promise<(() => void) | undefined> {
    const amount = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && this.inUse + amount <= this.capacity) return this.take(amount);
    return new Promise((resolve) => {
      const entry = { bytes: amount, grant: () => {} };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        resolve(undefined);
        this.grantWaiting();
      }, maxWaitMs);
      entry.grant = () => {
        clearTimeout(timer);
        resolve(this.take(amount));
      };
      this.waiting.push(entry);
    });
  }

  get reserved(): number {
    return this.inUse;
  }

  private take(amount: number): () => void {
    this.inUse += amount;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= amount;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length && this.inUse + this.waiting[0].bytes <= this.capacity) this.waiting.shift()!.grant();
  }
}
