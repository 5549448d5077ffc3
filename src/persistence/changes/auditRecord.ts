/**
 * Who made a change, as the audit log records it: a signed-in user (the settings page and tRPC `settings.*`), or an
 * operator with shell access (the CLIs: `npm run tokens`, `webhooks`, `gitapps`).
 */
export type Actor = { type: 'user'; userId: string } | { type: 'operator' };

export const OPERATOR: Actor = { type: 'operator' };

export const userActor = (userId: string): Actor => ({ type: 'user', userId });

/** What an audit entry is about: one change to one credential, webhook endpoint, app, view, team or member of an organization. */
export interface AuditRecord {
  /**
   * Whose log it is in. Null only for an organization's deletion: the entry outlives the organization and every row
   * it owned (`npm run orgs -- delete`), its id kept as the target.
   */
  organizationId: string | null;
  actor: Actor;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** What changed, as a small JSON object; never a secret or a token's value. */
  details?: Record<string, unknown>;
}

export const AUDIT_ACTIONS = [
  'api_token.created',
  'api_token.revoked',
  'scim_token.created',
  'scim_token.revoked',
  'otlp_token.created',
  'otlp_token.revoked',
  'webhook_endpoint.created',
  'webhook_endpoint.events_updated',
  'webhook_endpoint.disabled',
  'webhook_endpoint.enabled',
  'webhook_endpoint.secret_rotated',
  'webhook_delivery.replayed',
  'git_app.created',
  'git_app.secret_rotated',
  'git_app.secret_grace_ended',
  'git_app.user_linked',
  'git_app.credential_set',
  'app.created',
  'app.secret_rotated',
  'app.secret_grace_ended',
  'app.disabled',
  'app.enabled',
  'app.board_mapped',
  'app.board_unmapped',
  'app.status_mapped',
  'app.user_linked',
  'app.credential_set',
  'dashboard_view.created',
  'dashboard_view.renamed',
  'dashboard_view.shared',
  'dashboard_view.deleted',
  'organization.created',
  'organization.renamed',
  'organization.deleted',
  'team.created',
  'team.renamed',
  'team.deleted',
  'team.member_added',
  'team.member_removed',
  'team.member_role_set',
  'member.added',
  'member.role_set',
  'member.removed',
  'metric_settings.updated',
  'metric_settings.applied',
  'cost_rate.set',
  'cost_rate.unset',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = ['api_token', 'scim_token', 'otlp_token', 'webhook_endpoint', 'webhook_delivery', 'git_app', 'app', 'dashboard_view', 'team', 'organization', 'user'] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export const isAuditAction = (name: string): name is AuditAction => AUDIT_ACTIONS.some((action) => action === name);
export const isAuditTargetType = (name: string): name is AuditTargetType => AUDIT_TARGET_TYPES.some((type) => type === name);
