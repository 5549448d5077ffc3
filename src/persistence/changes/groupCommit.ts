/**
 * Group commit (docs/architecture.md#writers): requests of one key that arrive while a change of that key is being
 * committed wait, and go together into the next change, so a burst costs one transaction's round trips for many
 * requests instead of one each. Each caller hears back once the change holding its request has committed.
 *
 * A change that fails is tried again with each of its requests alone, so one request's fault (input the writer
 * refuses, say) is answered to that request only and never costs the others theirs.
 */
export class GroupCommit<Item, Result> {
  private readonly queues = new Map<string, { waiting: Waiting<Item, Result>[] }>();

  /** `commit` stores the items in one change and gives each item's result, in order. */
  constructor(private readonly commit: (key: string, items: Item[]) => Promise<Result[]>, private readonly maxItems = 64) {}

  add(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) return void queue.waiting.push({ item, resolve, reject });
      const started = { waiting: [{ item, resolve, reject }] };
      this.queues.set(key, started);
      void this.drain(key, started);
    });
  }

  private async drain(key: string, queue: { waiting: Waiting<Item, Result>[] }): Promise<void> {
    while (queue.waiting.length) {
      const group = queue.waiting.splice(0, this.maxItems);
      await this.commitGroup(key, group);
    }
    this.queues.delete(key);
  }

  private async commitGroup(key: string, group: Waiting<Item, Result>[]): Promise<void> {
    try {
      const results = await this.commit(key, group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      if (group.length === 1) return group[0].reject(err);
      for (const w of group) await this.commitGroup(key, [w]);
    }
  }
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(err: unknown): void;
}
