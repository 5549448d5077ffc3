import { QueryTypes, Sequelize, Transaction } from 'sequelize';

/**
 * Tells every instance the versions a committed change raised (Redis pub/sub in the service,
 * src/persistence/query/versionBroadcast.ts). Messages may be lost while disconnected: `lost` says so, and the
 * versions are read from the database until `connected` (after which a full read catches up).
 */
export interface VersionBroadcast {
  publish(versions: Record<string, number>): Promise<void>;
  subscribe(handlers: { message(versions: Record<string, number>): void; connected(): void; lost(): void }): Promise<void>;
  close(): Promise<void>;
}

export interface DataVersionsOptions {
  /** Absent: versions are learnt by polling alone (no Redis). */
  broadcast?: VersionBroadcast;
  /** How often the whole table is read again, with or without a broadcast: the bound on a missed message. */
  pollMs: number;
  onError(err: unknown): void;
}

/**
 * Keeps list totals and metric figures exact across instances (docs/architecture.md#writers). Every writer calls `recordChange`
 * inside the transaction of its change, naming the tables it wrote; their versions go up when the change commits,
 * and not at all when it rolls back. Readers key cached totals by the versions of the tables a list reads.
 *
 * Those versions are known without a read per request: this instance's own changes set them when they commit,
 * before the writer answers; other instances' changes arrive by the broadcast, published before their writer
 * answers too; a poll of the (small) table every `pollMs` bounds whatever a lost message or a process without the
 * broadcast could leave behind. Until the first full read, or while the broadcast is disconnected, each request
 * reads the versions it needs from the database, as before. A change made behind the service's back (SQL by hand)
 * raises no version: cached totals then stay wrong for at most the cache's time to live.
 */
export class DataVersions {
  private static readonly byDatabase = new WeakMap<Sequelize, DataVersions>();

  /** One per database connection, shared by its writers and readers. */
  static for(sequelize: Sequelize): DataVersions {
    let versions = DataVersions.byDatabase.get(sequelize);
    if (!versions) {
      versions = new DataVersions(sequelize);
      DataVersions.byDatabase.set(sequelize, versions);
    }
    return versions;
  }

  private readonly known = new Map<string, number>();
  private changes = 0;
  /** Whether `known` is kept current, so a request need not read the table. */
  private live = false;
  /** Whether messages arrive: always without a broadcast (polling alone), else while subscribed. */
  private listening = false;
  /** Raised when the subscription comes back: a poll begun before then may have missed a message. */
  private epoch = 0;
  private options?: DataVersionsOptions;
  private started?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;

  private constructor(private readonly sequelize: Sequelize) {}

  /** How this instance learns other instances' changes; the feed starts on the first read that needs versions. */
  configure(options: DataVersionsOptions): void {
    this.options = options;
  }

  /** The versions of these tables, as one string fit for a cache key (`commits=12,users=3`). */
  async of(tables: readonly string[]): Promise<string> {
    const names = [...new Set(tables)].sort();
    this.start();
    if (!this.live) this.learn(await this.read(names));
    return names.map((n) => `${n}=${this.known.get(n) ?? 0}`).join(',');
  }

  /**
   * Raises the versions of the tables a change wrote, in its transaction. Once it commits this instance knows the
   * new versions, and the others are told, before the change's writer answers.
   */
  /** Rises whenever this process learns that a table changed: what was computed before is older than that change. */
  get generation(): number {
    return this.changes;
  }

  async recordChange(tables: readonly string[], transaction: Transaction): Promise<void> {
    const names = [...new Set(tables)].sort(); // one lock order for every writer
    const raised = this.sequelize.getDialect() === 'mysql' ? await this.raiseEach(names, transaction) : await this.raiseThenRead(names, transaction);
    transaction.afterCommit(async () => {
      this.learn(raised);
      await this.options?.broadcast?.publish(Object.fromEntries(raised)).catch((err) => this.options?.onError(err));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    clearInterval(this.timer);
    // Closed first: a subscription still trying to reach a Redis that never answered would otherwise keep the
    // start pending, and the process from ever stopping.
    await this.options?.broadcast?.close();
    await this.started?.catch(() => undefined);
    await this.polling;
  }

  private start(): void {
    if (this.started || !this.options || this.stopped) return;
    const { broadcast, pollMs, onError } = this.options;
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
    if (!broadcast) {
      this.listening = true;
      this.started = this.poll();
      return;
    }
    this.started = broadcast
      .subscribe({
        message: (versions) => this.learn(Object.entries(versions)),
        // A message sent while disconnected is lost: read everything again once the subscription is back.
        connected: () => {
          this.listening = true;
          this.epoch += 1;
          void (this.polling ?? Promise.resolve()).then(() => this.poll());
        },
        lost: () => {
          this.listening = false;
          this.live = false;
        },
      })
      .catch((err) => onError(err));
  }

  /** Reads the whole table; afterwards `known` is current if messages arrived all along. */
  private poll(): Promise<void> {
    const epoch = this.epoch;
    this.polling ??= this.read()
      .then((rows) => {
        this.learn(rows);
        this.live = this.listening && epoch === this.epoch && !this.stopped;
      })
      .catch((err) => {
        this.live = false;
        this.options?.onError(err);
      })
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  /** Versions only go up: whichever of a message, a poll or a commit comes last, the highest is kept. */
  /**
   * MySQL and MariaDB: one statement per table, which also says the version it raised: `LAST_INSERT_ID(expr)`
   * hands the new value back as the statement's insert id (0 when the row was made, at version 1). Past two tables
   * (a page of history writes five), all are raised in one statement and read in another: the rows are this
   * transaction's until it ends, so what it reads is what it commits, at any isolation.
   */
  private async raiseEach(names: string[], transaction: Transaction): Promise<[string, number][]> {
    if (names.length > 2) {
      const rows = names.map((_, i) => `(:name${i}, 1)`).join(', ');
      const replacements = Object.fromEntries(names.map((name, i) => [`name${i}`, name]));
      await this.sequelize.query(`INSERT INTO data_versions (name, version) VALUES ${rows} ON DUPLICATE KEY UPDATE version = version + 1`, { replacements, transaction });
      return this.read(names, transaction);
    }
    const raised: [string, number][] = [];
    for (const name of names) {
      const [insertId] = await this.sequelize.query('INSERT INTO data_versions (name, version) VALUES (:name, 1) ON DUPLICATE KEY UPDATE version = LAST_INSERT_ID(version + 1)', {
        replacements: { name },
        transaction,
      });
      raised.push([name, Number(insertId) || 1]);
    }
    return raised;
  }

  /** SQLite: the rows raised, then read; they are this transaction's until it ends, so what it reads is what it commits. */
  private async raiseThenRead(names: string[], transaction: Transaction): Promise<[string, number][]> {
    const upsert = 'INSERT INTO data_versions (name, version) VALUES (:name, 1) ON CONFLICT (name) DO UPDATE SET version = version + 1';
    for (const name of names) await this.sequelize.query(upsert, { replacements: { name }, transaction });
    return this.read(names, transaction);
  }

  private learn(versions: Iterable<[string, number]>): void {
    for (const [name, version] of versions) {
      if (version > (this.known.get(name) ?? 0)) {
        this.known.set(name, version);
        this.changes += 1;
      }
    }
  }

  private async read(names?: readonly string[], transaction?: Transaction): Promise<[string, number][]> {
    const rows = await this.sequelize.query<{ name: string; version: number | string }>(
      names ? 'SELECT name, version FROM data_versions WHERE name IN (:names)' : 'SELECT name, version FROM data_versions',
      { replacements: names ? { names } : undefined, type: QueryTypes.SELECT, transaction, useMaster: true },
    );
    return rows.map((r) => [r.name, Number(r.version)]);
  }
}
