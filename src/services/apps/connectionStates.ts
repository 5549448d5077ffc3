import type { Transaction } from 'sequelize';
import type { ChangeRunner } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * Why a delivery to a known connection was refused, in the service's own words (docs/ingest.md#what-a-refusal-leaves):
 * what the setup view shows an admin. Never the body, a header's value or the message the sender was answered with,
 * which may quote them.
 */
export const REFUSAL_REASONS = {
  signature: 'signature does not match the secret',
  token: 'token does not match the secret',
  inactive: 'the connection is disabled',
  rate_limited: 'more deliveries than its rate limit allows',
  too_large: 'body larger than the limit',
  bad_body: 'body is not a delivery of its provider',
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

export const isRefusalReason = (word: string | null): word is RefusalReason => word !== null && Object.hasOwn(REFUSAL_REASONS, word);

/** Whose state is written: the git app or app, and its organization (the setup view reads by organization). */
export interface StateOwner {
  connectionId: string;
  organizationId: string;
}

/** An event's name as kept: a provider names its events in a header, unbounded. */
const eventName = (event: string) => event.slice(0, 64);

/**
 * The connection's last delivery (its first too, the first time), in the change that stores the delivery: one
 * statement, so an accepted delivery costs one more row written, and a rolled-back change leaves no trace.
 */
export async function recordDelivery(transaction: Transaction, owner: StateOwner, event: string, at: Date): Promise<void> {
  const sql = new ChangeSql(transaction);
  const values = [owner.connectionId, owner.organizationId, at, at, eventName(event)].map((v) => sql.literal(v)).join(', ');
  const kept = sql.mysql
    ? 'ON DUPLICATE KEY UPDATE first_delivery_at = COALESCE(first_delivery_at, VALUES(first_delivery_at)), last_delivery_at = VALUES(last_delivery_at), last_event = VALUES(last_event)'
    : 'ON CONFLICT (connection_id) DO UPDATE SET first_delivery_at = COALESCE(first_delivery_at, excluded.first_delivery_at), last_delivery_at = excluded.last_delivery_at, last_event = excluded.last_event';
  await sql.run(`INSERT INTO connection_states (connection_id, organization_id, first_delivery_at, last_delivery_at, last_event) VALUES (${values}) ${kept}`, {});
}

/** A refusal or an acknowledgement of one connection is written at most this often per instance. */
const INTERVAL_MS = 60_000;
/** Beyond this many remembered writes, those older than the interval are forgotten (they suppress nothing). */
const REMEMBERED = 10_000;

/**
 * What the ingest pipeline records outside a writer's change: refusals of deliveries to a known connection, and
 * deliveries answered without a change (a ping, an event the service does not store). Neither becomes a write per
 * request: each connection's refusal of one reason, or its acknowledgement, is written at most once a minute by this
 * instance, so a flood of bad signatures costs a row update a minute. A stored delivery forgets the connection's
 * refusals, so the same refusal after it is written at once. A failure to write is reported, never the sender's
 * problem.
 */
export class ConnectionStates {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly changes: ChangeRunner,
    private readonly onError: (err: unknown) => void,
  ) {}

  async refused(owner: StateOwner, reason: RefusalReason, now: Date): Promise<void> {
    if (!this.due(`${owner.connectionId}\u0000${reason}`, now)) return;
    await this.write((transaction) =>
      new ChangeSql(transaction).upsert('connection_states', ['connection_id'], ['organization_id', 'last_refusal_at', 'last_refusal'], [
        { connection_id: owner.connectionId, organization_id: owner.organizationId, last_refusal_at: now, last_refusal: reason },
      ]),
    );
  }

  /** A delivery taken but not stored: its connection is reached, which is what the setup view says. */
  async acknowledged(owner: StateOwner, event: string, now: Date): Promise<void> {
    this.stored(owner.connectionId);
    if (!this.due(owner.connectionId, now)) return;
    await this.write((transaction) => recordDelivery(transaction, owner, event, now));
  }

  /** A delivery its writer stored (and recorded): the next refusal of the connection is news again. */
  stored(connectionId: string): void {
    for (const reason of Object.keys(REFUSAL_REASONS)) this.written.delete(`${connectionId}\u0000${reason}`);
  }

  private due(key: string, now: Date): boolean {
    const at = now.getTime();
    if (at - (this.written.get(key) ?? -Infinity) < INTERVAL_MS) return false;
    if (this.written.size >= REMEMBERED) {
      for (const [k, t] of this.written) if (at - t >= INTERVAL_MS) this.written.delete(k);
    }
    this.written.set(key, at);
    return true;
  }

  private async write(statement: (transaction: Transaction) => Promise<void>): Promise<void> {
    try {
      await this.changes.run((change) => statement(change.transaction));
    } catch (err) {
      this.onError(err);
    }
  }
}
