import { Op } from 'sequelize';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../../db/models';
import { notFound } from '../../errors';
import { subscribedTypes } from '../../persistence/changes/outbox';

/** An endpoint as the CLI and the settings show it: never its secret. */
export function endpointView(e: WebhookEndpoint) {
  return {
    id: e.id,
    organization_id: e.organization_id,
    url: e.url,
    events: subscribedTypes(e),
    is_active: Boolean(e.is_active),
    disabled_reason: e.disabled_reason ?? null,
    created_at: e.created_at.toISOString(),
  };
}

export type EndpointView = ReturnType<typeof endpointView>;

/** Endpoints, all or one organization's, oldest first. */
export async function listEndpoints(organizationId?: string): Promise<EndpointView[]> {
  const where = organizationId ? { organization_id: organizationId } : {};
  return (await WebhookEndpoint.findAll({ where, order: [['created_at', 'ASC'], ['id', 'ASC']] })).map(endpointView);
}

/**
 * An endpoint's latest attempts, newest first, each with its delivery's event and state. Given an organization,
 * an endpoint of another one is not found.
 */
export async function recentAttempts(endpointId: string, limit: number, organizationId?: string) {
  const endpoint = await WebhookEndpoint.findByPk(endpointId);
  if (!endpoint || (organizationId !== undefined && endpoint.organization_id !== organizationId)) {
    throw notFound(`No webhook endpoint ${endpointId} (see "webhooks list")`);
  }
  const attempts = await WebhookAttempt.findAll({ where: { endpoint_id: endpointId }, order: [['attempted_at', 'DESC'], ['id', 'DESC']], limit });
  const deliveries = await WebhookDelivery.findAll({ where: { id: { [Op.in]: [...new Set(attempts.map((a) => a.delivery_id))] } } });
  const byId = new Map(deliveries.map((d) => [d.id, d]));
  return attempts.map((a) => {
    const d = byId.get(a.delivery_id);
    return {
      attempted_at: a.attempted_at.toISOString(),
      delivery_id: a.delivery_id,
      event_type: d?.event_type ?? null,
      event_id: d?.event_id ?? null,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
      response_excerpt: a.response_excerpt,
      delivery_status: d?.status ?? null,
      replay_of: d?.replay_of ?? null,
      next_attempt_at: d?.next_attempt_at?.toISOString() ?? null,
    };
  });
}

export type AttemptView = Awaited<ReturnType<typeof recentAttempts>>[number];
