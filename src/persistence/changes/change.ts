import { DatabaseError, Sequelize, Transaction, UniqueConstraintError } from 'sequelize';
import { AccessChange, AuditEntry } from '../../../db/models';
import { ChangeSql } from './changeSql';
import type { AuditRecord } from './auditRecord';
import { DataVersions } from '../query/dataVersions';
import type { EventType } from './events';
import { conflict, DomainError } from '../../errors';
import { newId } from './ids';
import { fanOut } from './outbox';

/**
 * One change through the service (docs/architecture.md#writers): its rows, its outbox events (docs/webhooks.md) and the data versions that
 * keep every instance's list totals exact, committed together or not at all. Every writer makes its changes
 * through `ChangeRunner.run`; none opens a transaction of its own.
 */
export interface Change {
  readonly transaction: Transaction;
  /** Names tables this change writes: their versions go up when it commits. */
  wrote(...tables: string[]): void;
  /** An event of the change, for the organization's subscribers; written to the outbox in this transaction. */
  emit(organizationId: string, type: EventType, data: unknown): void;
  /** Users whose access changes (suspension, removal, role): every instance forgets their cached tokens. */
  accessChanged(userId: string): void;
  /** A change to an organization's credentials or webhooks, for its admins' audit log (docs/settings.md). */
  audit(record: AuditRecord): void;
  /**
   * Work to do once the change's steps are done, before it commits, in the order asked: a rollup recomputed from
   * the rows the steps touched, once for all of them (a page of history brings a pull request with its reviews).
   */
  beforeCommit(work: () => Promise<void>): void;
}

/**
 * What a writer keeps for the length of one change (the bot settings it read, the rollups its steps left for the
 * end): made by `make` when the change first asks, the same for its later asks, gone with it. A change run again
 * after a lost race is a new change, so nothing carries over from the attempt that failed.
 */
export function perChange<T>(make: (change: Change) => T): (change: Change) => T {
  const kept = new WeakMap<Change, T>();
  return (change) => {
    let value = kept.get(change);
    if (value === undefined) kept.set(change, (value = make(change)));
    return value;
  };
}

/** What a committed change tells the rest of the process (e.g. the authenticator's token cache). */
export interface Committed {
  tables: string[];
  accessChangedUsers: string[];
  /** Outgoing webhook deliveries the change queued (a delivery worker on this instance starts on them at once). */
  deliveries: number;
}

const MAX_ATTEMPTS = 5;

/** An outbox event's columns; its `seq` is the database's. */
const OUTBOX_COLUMNS = ['id', 'organization_id', 'type', 'data', 'created_at'] as const;

export class ChangeRunner {
  private static readonly runners = new WeakMap<Sequelize, ChangeRunner>();

  /**
   * The one runner of a database: the API, a CLI and a test that write through the same Sequelize share its SQLite
   * queue and its listeners.
   */
  static for(sequelize: Sequelize): ChangeRunner {
    let runner = ChangeRunner.runners.get(sequelize);
    if (!runner) ChangeRunner.runners.set(sequelize, (runner = new ChangeRunner(sequelize)));
    return runner;
  }

  private readonly listeners: ((committed: Committed) => void | Promise<void>)[] = [];
  /** SQLite has one writer at a time; queueing here spares each change a busy error and a retry. */
  private queue: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private readonly idle: (() => void)[] = [];
  private closing = false;

  constructor(private readonly sequelize: Sequelize, private readonly now: () => Date = () => new Date()) {}

  /**
   * Called after every committed change on this instance (other instances notice within their caches' TTL). A
   * listener's promise is awaited before the change's caller hears back (ending the sessions of a suspended member
   * happens before the suspension is answered); it must not reject.
   */
  onCommitted(listener: (committed: Committed) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /**
   * `readCommitted`: for changes that lock rows which may not exist yet, many at once (telemetry's series and
   * batches): at MariaDB's default isolation such reads lock the gaps too, and concurrent inserts into those gaps
   * deadlock. SQLite has one writer at a time either way.
   */
  run<T>(work: (change: Change) => Promise<T>, options: { readCommitted?: boolean } = {}): Promise<T> {
    if (this.closing) return Promise.reject(new DomainError('unavailable', 'The service is stopping; send the change again in a moment', { retryAfterSeconds: 1 }));
    let next: Promise<T>;
    if (this.sequelize.getDialect() !== 'sqlite') next = this.withRetries(work, options.readCommitted ?? false);
    else {
      next = this.queue.then(() => this.withRetries(work, false));
      this.queue = next.catch(() => undefined);
    }
    this.inFlight++;
    const settled = () => {
      if (--this.inFlight === 0) this.idle.splice(0).forEach((resolve) => resolve());
    };
    next.then(settled, settled);
    return next;
  }

  /**
   * Before the pool closes: no change starts any more, and those under way end. A transaction cut off by the closing
   * pool would fail to commit or roll back, and the driver reports that on its handle, where no one catches it (an
   * error answer's note for the setup view, written as the process stops, would otherwise take the process down).
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  /**
   * A change that lost a race runs again from the start, reading what the winner committed: a deadlock victim on
   * MariaDB, or a row a concurrent change inserted first (two provisionings of one new e-mail: the second then
   * finds the user and adds its membership). A race lost every time is a conflict (409) when the row exists, else 503 with Retry-After: never the client's fault.
   */
  private async withRetries<T>(work: (change: Change) => Promise<T>, readCommitted: boolean): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runNow(work, readCommitted);
      } catch (err) {
        const race = lostRace(err);
        if (!race) throw err;
        // A busy SQLite file has already been waited for (its busy timeout): trying again would only wait again.
        if (race !== 'busy' && attempt < MAX_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
          continue;
        }
        // Another change keeps making the row first: what this one would add exists (409).
        if (race === 'duplicate') throw conflict('That already exists: a concurrent change made it first');
        // Nothing the client sent is wrong: the same request is likely to succeed in a moment.
        throw new DomainError('unavailable', `The change lost to concurrent changes of the same data ${MAX_ATTEMPTS} times; send it again`, {
          retryAfterSeconds: 1,
        });
      }
    }
  }

  private async runNow<T>(work: (change: Change) => Promise<T>, readCommitted: boolean): Promise<T> {
    const tables = new Set<string>();
    const users = new Set<string>();
    const events: { id: string; organization_id: string; type: EventType; data: string; created_at: Date }[] = [];
    const audits: AuditRecord[] = [];
    const lastSteps: (() => Promise<void>)[] = [];
    let deliveries = 0;
    const isolation = readCommitted ? { isolationLevel: Transaction.ISOLATION_LEVELS.READ_COMMITTED } : {};
    const result = await this.sequelize.transaction(isolation, async (transaction) => {
      const value = await work({
        transaction,
        wrote: (...names) => names.forEach((n) => tables.add(n)),
        emit: (organizationId, type, data) =>
          events.push({ id: newId('evt'), organization_id: organizationId, type, data: JSON.stringify(data), created_at: this.now() }),
        accessChanged: (userId) => users.add(userId),
        audit: (record) => {
          audits.push(record);
          tables.add(AuditEntry.tableName);
        },
        beforeCommit: (step) => lastSteps.push(step),
      });
      // A last step may ask for another: each runs once, in order.
      for (let i = 0; i < lastSteps.length; i++) await lastSteps[i]();
      if (audits.length) await AuditEntry.bulkCreate(audits.map((a) => auditRow(a, this.now())), { transaction });
      if (tables.size) await DataVersions.for(this.sequelize).recordChange([...tables], transaction);
      // Every instance reads these and forgets the users' cached tokens (src/auth/accessChangeFeed.ts).
      if (users.size) await AccessChange.bulkCreate([...users].map((user_id) => ({ user_id, created_at: this.now() })), { transaction });
      if (events.length) {
        // Without model instances: a burst of deliveries emits tens of events per change.
        await new ChangeSql(transaction).insert('outbox_events', OUTBOX_COLUMNS, events);
        deliveries = await fanOut(events, transaction, this.now());
      }
      return value;
    });
    const committed = { tables: [...tables], accessChangedUsers: [...users], deliveries };
    await Promise.all(this.listeners.map((listener) => listener(committed)));
    return result;
  }
}

function auditRow(record: AuditRecord, now: Date) {
  return {
    id: newId('aud'),
    organization_id: record.organizationId,
    actor_type: record.actor.type,
    actor_user_id: record.actor.type === 'user' ? record.actor.userId : null,
    action: record.action,
    target_type: record.target.type,
    target_id: record.target.id,
    details: JSON.stringify(record.details ?? {}),
    created_at: now,
  };
}

/**
 * A race this change lost, not a fault of its input: on MySQL a deadlock (1213) or a lock wait that timed out
 * (1205), or a row a concurrent change inserted first; on SQLite the file stayed locked by another process past
 * the busy timeout (db/connection.ts).
 */
function lostRace(err: unknown): 'duplicate' | 'locked' | 'busy' | undefined {
  if (err instanceof UniqueConstraintError) return 'duplicate';
  if (!(err instanceof DatabaseError)) return undefined;
  const cause = err.parent;
  const errno = 'errno' in cause ? cause.errno : undefined;
  if (errno === 1213 || errno === 1205) return 'locked';
  return 'code' in cause && cause.code === 'SQLITE_BUSY' ? 'busy' : undefined;
}
