import { Op } from 'sequelize';
import { AccessChange } from '../../db/models';

export interface AccessChangeListener {
  forgetUsers(userIds: readonly string[]): void;
  forgetAll(): void;
}

export interface AccessChangeFeedOptions {
  /** How often the feed reads new access changes. */
  intervalMs: number;
  onError: (err: unknown) => void;
}

/** More new changes than this in one read: every cached principal is dropped instead. */
const BATCH = 5_000;
/**
 * Ids are taken when a change inserts its row and seen when it commits, so a smaller id can appear after a larger
 * one. Each read therefore starts below what it has seen, at the largest id seen this long ago; a change slower
 * than this between insert and commit is still covered by the token cache's own time to live.
 */
const LATE_COMMIT_MS = 10_000;

/**
 * Tells this instance of the access changes every instance makes (docs/api.md#tokens-limits-and-headers: a suspension, removal or role change
 * bites within 5 s everywhere). Writers add an `access_changes` row in the change's transaction; the feed reads
 * the new ones each `intervalMs` and has the authenticator forget those users' cached tokens. One indexed read
 * per second per instance, whatever the traffic.
 */
export class AccessChangeFeed {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Undefined until the first read, which starts from the newest change (older ones are past every cache's TTL). */
  private floor?: number;
  private readonly seen = new Set<number>();
  private readonly marks: { at: number; maxId: number }[] = [];

  constructor(
    private readonly listener: AccessChangeListener,
    private readonly options: AccessChangeFeedOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    const tick = () => {
      this.running ??= this.read()
        .catch(this.options.onError)
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One read: forgets the users of changes not seen before. Exposed for tests that step the feed themselves. */
  async read(): Promise<void> {
    if (this.floor === undefined) {
      this.floor = Number((await AccessChange.max<number | string | null, AccessChange>('id', { useMaster: true })) ?? 0);
      return;
    }
    const rows = await AccessChange.findAll({
      where: { id: { [Op.gt]: this.floor } },
      attributes: ['id', 'user_id'],
      order: [['id', 'ASC']],
      limit: BATCH,
      useMaster: true,
    });
    const lastId = rows.length ? Number(rows[rows.length - 1].id) : undefined;
    if (rows.length === BATCH) {
      // Forgetting everyone covers whatever this read did not reach; reading on from its end keeps up.
      this.listener.forgetAll();
      this.floor = lastId!;
      this.seen.clear();
      this.marks.length = 0;
      return;
    }
    const fresh = rows.filter((r) => !this.seen.has(Number(r.id)));
    for (const r of fresh) this.seen.add(Number(r.id));
    if (fresh.length) this.listener.forgetUsers([...new Set(fresh.map((r) => r.user_id))]);
    this.advance(lastId);
  }

  private advance(maxId: number | undefined): void {
    const now = this.clock();
    const floor = this.floor ?? 0;
    const previous = this.marks.length ? this.marks[this.marks.length - 1].maxId : floor;
    this.marks.push({ at: now, maxId: Math.max(previous, maxId ?? 0) });
    while (this.marks.length > 1 && this.marks[1].at <= now - LATE_COMMIT_MS) this.marks.shift();
    if (this.marks[0].at <= now - LATE_COMMIT_MS) this.floor = Math.max(floor, this.marks[0].maxId);
    for (const id of this.seen) if (id <= (this.floor ?? 0)) this.seen.delete(id);
  }
}
