/**
 * The events of docs/webhooks.md, one outbox row each. Writers name them here; the webhooks CLI refuses any other
 * name, so a subscription can only ask for what some writer sends.
 */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'membership.deactivated',
  'membership.removed',
  'team.created',
  'team.updated',
  'team.deleted',
  'repository.created',
  'commit.created',
  'pull_request.opened',
  'pull_request.merged',
  'pull_request.closed',
  'deployment.succeeded',
  'deployment.failed',
  'incident.opened',
  'incident.resolved',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(name: string): name is EventType {
  return EVENT_TYPES.some((type) => type === name);
}
