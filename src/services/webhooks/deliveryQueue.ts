import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Op, Sequelize, Transaction } from 'sequelize';
import { selectSql } from '../../persistence/query/selectSql';
import { OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../../db/models';
import { openRotated, SecretBox } from '../../secrets/secretBox';
import type { ChangeRunner } from '../../persistence/changes/change';
import { retryDelay } from './schedule';

/** An endpoint failing this long, with no 2xx in between, is disabled (docs/webhooks.md). */
export const FAILING_LIMIT_MS = 5 * 24 * 60 * 60 * 1000;

/** An endpoint this worker holds: its events go out from here alone, in order, until the lease is released. */
export interface LeasedEndpoint {
  id: string;
  organization_id: string;
  url: string;
  /** The plain signing secrets valid now (two during a rotation's grace). */
  secrets: string[];
  failing_since: Date | null;
  /** This lease's token: every write under the lease checks it is still the holder. */
  lease: string;
}

export interface DueDelivery {
  id: string;
  attempts: number;
  event: { id: string; type: string; created_at: Date; data: string };
}

/** What one POST gave, as the sender saw it. */
export interface AttemptResult {
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
}

export type AttemptVerdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: Date }
  | { kind: 'gave_up' }
  /** 410 fails this delivery; five days of failures leave it pending, to go out if the endpoint is enabled again. */
  | { kind: 'endpoint_disabled'; reason: string; deliveryFailed: boolean };

export interface QueueStats {
  pending: number;
  due: number;
  /** How long the oldest due delivery has waited past its time; 0 when none is due. */
  lagMs: number;
}

/**
 * The delivery side of the outbox (docs/webhooks.md), on the database both backends share. Workers lease endpoints, not
 * single deliveries: one holder per endpoint keeps its events in order and sends none twice at once across
 * instances. The lease is taken with `FOR UPDATE SKIP LOCKED` on MariaDB (two workers claiming together pass
 * each other by) and a compare-and-set on `lease_until`, which is what makes it exclusive on SQLite as well; a
 * holder that dies leaves a lease that expires, and its endpoint's deliveries are sent again (at least once).
 */
export class DeliveryQueue {
  private claims = 0;
  /** Names this process in `leased_by`, for an operator reading the table. */
  readonly holder = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  constructor(
    private readonly changes: ChangeRunner,
    private readonly secrets: SecretBox,
    private readonly retryDelays: readonly number[],
  ) {}

  /** Up to `count` endpoints with due deliveries, leased to this worker until `leaseUntil`; the least recently served first. */
  claim(count: number, now: Date, leaseUntil: Date): Promise<LeasedEndpoint[]> {
    const lease = `${this.holder}:${++this.claims}`;
    return this.changes.run(async ({ transaction }) => {
      const free = { [Op.or]: [{ lease_until: null }, { lease_until: { [Op.lte]: now } }] };
      const hasDue = Sequelize.literal(`EXISTS (${this.dueDeliveryOf('webhook_endpoint.id', now)})`);
      const candidates = await WebhookEndpoint.findAll({
        attributes: ['id'],
        where: { is_active: true, [Op.and]: [free, hasDue] },
        order: [['lease_until', 'ASC'], ['id', 'ASC']],
        limit: count,
        lock: Transaction.LOCK.UPDATE,
        skipLocked: true,
        transaction,
      });
      if (candidates.length === 0) return [];
      const ids = candidates.map((c) => c.id);
      await WebhookEndpoint.update({ lease_until: leaseUntil, leased_by: lease }, { where: { id: ids, is_active: true, [Op.and]: [free] }, transaction });
      const leased = await WebhookEndpoint.findAll({ where: { id: ids, leased_by: lease }, transaction });
      return leased.map((e) => ({
        id: e.id,
        organization_id: e.organization_id,
        url: e.url,
        secrets: openRotated(this.secrets, { current: e.secret, previous: e.previous_secret, previousExpiresAt: e.previous_secret_expires_at }, now),
        failing_since: e.failing_since,
        lease,
      }));
    });
  }

  /** `SELECT` of one due delivery of the endpoint in `endpointColumn`. */
  private dueDeliveryOf(endpointColumn: string, now: Date): string {
    const where = { endpoint_id: { [Op.eq]: Sequelize.col(endpointColumn) }, status: 'pending', next_attempt_at: { [Op.lte]: now } };
    return selectSql(WebhookDelivery, { attributes: ['id'], where, limit: 1 });
  }

  /** The endpoint's due deliveries in the order their events happened, with the events. */
  async due(endpointId: string, now: Date, limit: number): Promise<DueDelivery[]> {
    const deliveries = await WebhookDelivery.findAll({
      where: { endpoint_id: endpointId, status: 'pending', next_attempt_at: { [Op.lte]: now } },
      order: [['event_seq', 'ASC'], ['id', 'ASC']],
      limit,
      useMaster: true,
    });
    if (deliveries.length === 0) return [];
    const events = await OutboxEvent.findAll({ where: { seq: deliveries.map((d) => d.event_seq) }, useMaster: true });
    const bySeq = new Map(events.map((e) => [Number(e.seq), e]));
    return deliveries.flatMap((d) => {
      const event = bySeq.get(Number(d.event_seq));
      return event ? [{ id: d.id, attempts: d.attempts, event: { id: event.id, type: event.type, created_at: event.created_at, data: event.data } }] : [];
    });
  }

  /** What an attempt means under docs/webhooks.md: 2xx delivered; 410 disables the endpoint; else a retry, until they run out. */
  verdict(endpoint: LeasedEndpoint, delivery: DueDelivery, attempt: AttemptResult, now: Date): AttemptVerdict {
    const code = attempt.statusCode;
    if (code !== null && code >= 200 && code < 300) return { kind: 'delivered' };
    if (code === 410) return { kind: 'endpoint_disabled', reason: `answered 410 Gone at ${attempt.attemptedAt.toISOString()}`, deliveryFailed: true };
    const failingSince = endpoint.failing_since ?? attempt.attemptedAt;
    if (now.getTime() - failingSince.getTime() >= FAILING_LIMIT_MS) {
      return { kind: 'endpoint_disabled', reason: `failing since ${failingSince.toISOString()} (no 2xx for 5 days)`, deliveryFailed: false };
    }
    const delay = retryDelay(delivery.attempts + 1, this.retryDelays);
    return delay === undefined ? { kind: 'gave_up' } : { kind: 'retry', at: new Date(now.getTime() + delay) };
  }

  /**
   * Records an attempt and its verdict in one transaction, and extends the lease to `leaseUntil`. Returns false when
   * the lease was lost meanwhile (this holder was too slow; another has the endpoint now) or the endpoint is
   * disabled: the holder stops.
   */
  record(endpoint: LeasedEndpoint, delivery: DueDelivery, attempt: AttemptResult, verdict: AttemptVerdict, now: Date, leaseUntil: Date): Promise<boolean> {
    return this.changes.run(async ({ transaction }) => {
      await WebhookAttempt.create(
        {
          delivery_id: delivery.id,
          endpoint_id: endpoint.id,
          attempted_at: attempt.attemptedAt,
          duration_ms: attempt.durationMs,
          status_code: attempt.statusCode,
          error: attempt.error?.slice(0, 300) ?? null,
          response_excerpt: attempt.excerpt?.slice(0, 1024) ?? null,
        },
        { transaction },
      );
      const disabled = verdict.kind === 'endpoint_disabled';
      const failingSince = verdict.kind === 'delivered' ? null : (endpoint.failing_since ?? attempt.attemptedAt);
      const [held] = await WebhookEndpoint.update(
        {
          failing_since: failingSince,
          updated_at: now,
          ...(disabled ? { is_active: false, disabled_reason: verdict.reason, lease_until: null, leased_by: null } : { lease_until: leaseUntil }),
        },
        { where: { id: endpoint.id, leased_by: endpoint.lease }, transaction },
      );
      endpoint.failing_since = failingSince;
      const failed = verdict.kind === 'gave_up' || (verdict.kind === 'endpoint_disabled' && verdict.deliveryFailed);
      const status = verdict.kind === 'delivered' ? 'succeeded' : failed ? 'failed' : 'pending';
      await WebhookDelivery.update(
        { status, attempts: delivery.attempts + 1, next_attempt_at: verdict.kind === 'retry' ? verdict.at : null, updated_at: now },
        { where: { id: delivery.id, status: 'pending' }, transaction },
      );
      if (disabled && held) await pauseDeliveries(endpoint.id, transaction);
      return held > 0 && !disabled;
    });
  }

  /** Gives the endpoint back; `lease_until` keeps the time, so the least recently served endpoint is claimed first. */
  async release(endpoint: LeasedEndpoint, now: Date): Promise<void> {
    await this.changes.run(({ transaction }) =>
      WebhookEndpoint.update({ lease_until: now, leased_by: null }, { where: { id: endpoint.id, leased_by: endpoint.lease }, transaction }),
    );
  }

  async stats(now: Date): Promise<QueueStats> {
    const pendingWhere = { status: 'pending', next_attempt_at: { [Op.ne]: null } };
    const [pending, due, oldest] = await Promise.all([
      WebhookDelivery.count({ where: pendingWhere, useMaster: true }),
      WebhookDelivery.count({ where: { status: 'pending', next_attempt_at: { [Op.lte]: now } }, useMaster: true }),
      WebhookDelivery.min<Date | string | null, WebhookDelivery>('next_attempt_at', { where: pendingWhere, useMaster: true }),
    ]);
    const oldestAt = oldest === null ? null : new Date(oldest);
    return { pending, due, lagMs: oldestAt && oldestAt <= now ? now.getTime() - oldestAt.getTime() : 0 };
  }
}

/** A disabled endpoint's pending deliveries wait (next_attempt_at NULL) until it is enabled again. */
export function pauseDeliveries(endpointId: string, transaction: Transaction): Promise<unknown> {
  return WebhookDelivery.update({ next_attempt_at: null }, { where: { endpoint_id: endpointId, status: 'pending' }, transaction });
}
