/**
 * A job a process runs in the background every so often (the retention pruner, the AI vendors' daily pull): the first
 * run a while after start, so a starting process serves first; one run at a time; timers that keep no process alive;
 * `stop` waits for the run in progress.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly firstAfterMs: number,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.run();
      this.timer = setTimeout(tick, this.everyMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.firstAfterMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
