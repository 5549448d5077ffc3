import { randomBytes } from 'node:crypto';
import { Op, Transaction } from 'sequelize';
import { Organization, WebhookDelivery, WebhookEndpoint } from '../../../db/models';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox } from '../../secrets/secretBox';
import { pauseDeliveries } from './deliveryQueue';
import type { ChangeRunner } from '../changes/change';
import { invalid, notFound } from '../../errors';
import { EVENT_TYPES, isEventType } from './events';
import { newId } from '../changes/ids';

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** The plain `whsec_` secret: shown once, stored sealed. */
  secret: string;
}

/** Refuses a URL webhooks must not go to (DESIGN §12), throwing an Error whose message says why. */
export type EndpointUrlCheck = (url: string) => Promise<void>;

export const MAX_URL_LENGTH = 2048;

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Subscriptions to outgoing webhooks (DESIGN §12), made by the `webhooks` CLI: an organization's endpoint URL,
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
  async create(organizationId: string, url: string, eventTypes: string[] | null): Promise<EndpointWithSecret> {
    if (url.length > MAX_URL_LENGTH) throw invalid(`The URL has at most ${MAX_URL_LENGTH} characters`);
    const unknown = (eventTypes ?? []).filter((t) => !isEventType(t));
    if (unknown.length) throw invalid(`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the events are ${EVENT_TYPES.join(', ')}`);
    if (eventTypes?.length === 0) throw invalid('Name at least one event, or leave the events out to receive them all');
    try {
      await this.checkUrl(url);
    } catch (err) {
      throw invalid(`Cannot send webhooks to ${url}: ${(err as Error).message}`);
    }
    return this.changes.run(async ({ transaction }) => {
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
      return { endpoint, secret };
    });
  }

  /** Stops deliveries; those pending wait, and go out in order if the endpoint is enabled again. */
  disable(endpointId: string): Promise<WebhookEndpoint> {
    return this.changes.run(async ({ transaction }) => {
      const endpoint = await this.find(endpointId, transaction);
      if (endpoint.is_active) {
        await endpoint.update({ is_active: false, disabled_reason: `disabled by an operator at ${this.now().toISOString()}`, updated_at: this.now() }, { transaction });
        await pauseDeliveries(endpoint.id, transaction);
      }
      return endpoint;
    });
  }

  /** Resumes deliveries, the paused ones first; the endpoint gets a fresh five days before failures disable it. */
  enable(endpointId: string): Promise<{ endpoint: WebhookEndpoint; resumed: number }> {
    return this.changes.run(async ({ transaction }) => {
      const endpoint = await this.find(endpointId, transaction);
      if (endpoint.is_active) return { endpoint, resumed: 0 };
      const now = this.now();
      await endpoint.update({ is_active: true, disabled_reason: null, failing_since: null, lease_until: null, leased_by: null, updated_at: now }, { transaction });
      const [resumed] = await WebhookDelivery.update(
        { next_attempt_at: now, updated_at: now },
        { where: { endpoint_id: endpoint.id, status: 'pending', next_attempt_at: { [Op.is]: null } }, transaction },
      );
      return { endpoint, resumed };
    });
  }

  /** A new secret; deliveries are signed with the previous one too for PREVIOUS_SECRET_GRACE_MS. */
  rotateSecret(endpointId: string): Promise<EndpointWithSecret> {
    return this.changes.run(async ({ transaction }) => {
      const endpoint = await this.find(endpointId, transaction);
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
      return { endpoint, secret };
    });
  }

  /** Sends a delivery's event to its endpoint again, as a new delivery due now (same `webhook-id`). */
  replay(deliveryId: string): Promise<WebhookDelivery> {
    return this.changes.run(async ({ transaction }) => {
      const original = await WebhookDelivery.findByPk(deliveryId, { transaction });
      if (!original) throw notFound(`No delivery ${deliveryId} (see "webhooks deliveries <endpoint id>")`);
      const endpoint = await this.find(original.endpoint_id, transaction);
      if (!endpoint.is_active) throw invalid(`Endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason}); enable it first`);
      const now = this.now();
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

  private async find(endpointId: string, transaction: Transaction): Promise<WebhookEndpoint> {
    const endpoint = await WebhookEndpoint.findByPk(endpointId, { transaction });
    if (!endpoint) throw notFound(`No webhook endpoint ${endpointId} (see "webhooks list")`);
    return endpoint;
  }
}
