import { OPERATOR } from '../../persistence/changes/auditRecord';
import { ChangeAuthority, isWithinAuthority } from '../audit/actor';
import { randomBytes } from 'node:crypto';
import { Op, Transaction } from 'sequelize';
import { Organization, WebhookDelivery, WebhookEndpoint } from '../../../db/models';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox } from '../../secrets/secretBox';
import { pauseDeliveries } from './deliveryQueue';
import type { ChangeRunner } from '../../persistence/changes/change';
import { invalid, notFound } from '../../errors';
import { EVENT_TYPES, isEventType } from '../../persistence/changes/events';
import { newId } from '../../persistence/changes/ids';

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** The plain `whsec_` secret: shown once, stored sealed. */
  secret: string;
}

/** Refuses a URL webhooks must not go to (docs/webhooks.md), throwing an Error whose message says why. */
export type EndpointUrlCheck = (url: string) => Promise<void>;

export const MAX_URL_LENGTH = 2048;

function checkEventTypes(eventTypes: string[] | null): void {
  const unknown = (eventTypes ?? []).filter((t) => !isEventType(t));
  if (unknown.length) throw invalid(`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the events are ${EVENT_TYPES.join(', ')}`);
  if (eventTypes?.length === 0) throw invalid('Name at least one event, or leave the events out to receive them all');
}

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Subscriptions to outgoing webhooks (docs/webhooks.md), made by the `webhooks` CLI: an organization's endpoint URL,
 * the events it wants, and the secret its deliveries are signed with.
 */
export class WebhookEndpointWriter {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly secrets: SecretBox,
    private readonly checkUrl: EndpointUrlCheck,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** `eventTypes` null subscribes to every event, including ones added later. */
  async create(organizationId: string, url: string, eventTypes: string[] | null, by: ChangeAuthority = {}): Promise<EndpointWithSecret> {
    if (url.length > MAX_URL_LENGTH) throw invalid(`The URL has at most ${MAX_URL_LENGTH} characters`);
    checkEventTypes(eventTypes);
    try {
      await this.checkUrl(url);
    } catch (err) {
      throw invalid(`Cannot send webhooks to ${url}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return this.changes.run(async ({ transaction, audit }) => {
      if (!(await Organization.findByPk(organizationId, { transaction }))) throw notFound(`No organization ${organizationId}`);
      const secret = newSigningSecret();
      const now = this.now();
      const endpoint = await WebhookEndpoint.create(
        {
          id: newId('whep'),
          organization_id: organizationId,
          url,
          event_types: eventTypes ? JSON.stringify([...new Set(eventTypes)]) : null,
          is_active: true,
          secret: this.secrets.seal(secret),
          created_at: now,
          updated_at: now,
        },
        { transaction },
      );
      audit({ organizationId, actor: by.actor ?? OPERATOR, action: 'webhook_endpoint.created', target: { type: 'webhook_endpoint', id: endpoint.id }, details: { url, events: eventTypes } });
      return { endpoint, secret };
    });
  }

  /** Changes the events an endpoint receives (null: all of them, including ones added later); pending deliveries still go. */
  updateEvents(endpointId: string, eventTypes: string[] | null, by: ChangeAuthority = {}): Promise<WebhookEndpoint> {
    checkEventTypes(eventTypes);
    return this.changes.run(async ({ transaction, audit }) => {
      const endpoint = await this.find(endpointId, transaction, by);
      const events = eventTypes ? [...new Set(eventTypes)] : null;
      await endpoint.update({ event_types: events ? JSON.stringify(events) : null, updated_at: this.now() }, { transaction });
      audit({ organizationId: endpoint.organization_id, actor: by.actor ?? OPERATOR, action: 'webhook_endpoint.events_updated', target: { type: 'webhook_endpoint', id: endpoint.id }, details: { events } });
      return endpoint;
    });
  }

  /** Stops deliveries; those pending wait, and go out in order if the endpoint is enabled again. */
  disable(endpointId: string, by: ChangeAuthority = {}): Promise<WebhookEndpoint> {
    return this.changes.run(async ({ transaction, audit }) => {
      const endpoint = await this.find(endpointId, transaction, by);
      if (endpoint.is_active) {
        const who = by.actor?.type === 'user' ? `by ${by.actor.userId}` : 'by an operator';
        await endpoint.update({ is_active: false, disabled_reason: `disabled ${who} at ${this.now().toISOString()}`, updated_at: this.now() }, { transaction });
        await pauseDeliveries(endpoint.id, transaction);
        audit({ organizationId: endpoint.organization_id, actor: by.actor ?? OPERATOR, action: 'webhook_endpoint.disabled', target: { type: 'webhook_endpoint', id: endpoint.id } });
      }
      return endpoint;
    });
  }

  /** Resumes deliveries, the paused ones first; the endpoint gets a fresh five days before failures disable it. */
  enable(endpointId: string, by: ChangeAuthority = {}): Promise<{ endpoint: WebhookEndpoint; resumed: number }> {
    return this.changes.run(async ({ transaction, audit }) => {
      const endpoint = await this.find(endpointId, transaction, by);
      if (endpoint.is_active) return { endpoint, resumed: 0 };
      const now = this.now();
      await endpoint.update({ is_active: true, disabled_reason: null, failing_since: null, lease_until: null, leased_by: null, updated_at: now }, { transaction });
      const [resumed] = await WebhookDelivery.update(
        { next_attempt_at: now, updated_at: now },
        { where: { endpoint_id: endpoint.id, status: 'pending', next_attempt_at: { [Op.is]: null } }, transaction },
      );
      audit({ organizationId: endpoint.organization_id, actor: by.actor ?? OPERATOR, action: 'webhook_endpoint.enabled', target: { type: 'webhook_endpoint', id: endpoint.id }, details: { resumed } });
      return { endpoint, resumed };
    });
  }

  /** A new secret; deliveries are signed with the previous one too for PREVIOUS_SECRET_GRACE_MS. */
  rotateSecret(endpointId: string, by: ChangeAuthority = {}): Promise<EndpointWithSecret> {
    return this.changes.run(async ({ transaction, audit }) => {
      const endpoint = await this.find(endpointId, transaction, by);
      const secret = newSigningSecret();
      const now = this.now();
      await endpoint.update(
        {
          secret: this.secrets.seal(secret),
          previous_secret: endpoint.secret,
          previous_secret_expires_at: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
          updated_at: now,
        },
        { transaction },
      );
      audit({ organizationId: endpoint.organization_id, actor: by.actor ?? OPERATOR, action: 'webhook_endpoint.secret_rotated', target: { type: 'webhook_endpoint', id: endpoint.id } });
      return { endpoint, secret };
    });
  }

  /** Sends a delivery's event to its endpoint again, as a new delivery due now (same `webhook-id`). */
  replay(deliveryId: string, by: ChangeAuthority = {}): Promise<WebhookDelivery> {
    return this.changes.run(async ({ transaction, audit }) => {
      const original = await WebhookDelivery.findByPk(deliveryId, { transaction });
      if (!original || !isWithinAuthority(by, original.organization_id)) throw notFound(`No delivery ${deliveryId} (see "webhooks deliveries <endpoint id>")`);
      const endpoint = await this.find(original.endpoint_id, transaction, by);
      if (!endpoint.is_active) throw invalid(`Endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason}); enable it first`);
      const now = this.now();
      audit({ organizationId: endpoint.organization_id, actor: by.actor ?? OPERATOR, action: 'webhook_delivery.replayed', target: { type: 'webhook_delivery', id: original.id }, details: { endpoint_id: endpoint.id, event_id: original.event_id } });
      return WebhookDelivery.create(
        {
          id: newId('dlv'),
          endpoint_id: endpoint.id,
          organization_id: original.organization_id,
          event_seq: original.event_seq,
          event_id: original.event_id,
          event_type: original.event_type,
          status: 'pending',
          next_attempt_at: now,
          replay_of: original.id,
          created_at: now,
          updated_at: now,
        },
        { transaction },
      );
    });
  }

  private async find(endpointId: string, transaction: Transaction, by: ChangeAuthority): Promise<WebhookEndpoint> {
    const endpoint = await WebhookEndpoint.findByPk(endpointId, { transaction });
    if (!endpoint || !isWithinAuthority(by, endpoint.organization_id)) throw notFound(`No webhook endpoint ${endpointId} (see "webhooks list")`);
    return endpoint;
  }
}
