import { GitApp } from '../../../../db/models';
import type { ProviderCatalog } from '../../apps/catalog';
import { previousSecretGraceEnd } from '../../../secrets/secretBox';
import type { AccountLink } from '../../people/accountLinks';

/**
 * Where the provider sends an app's webhooks: the service's public base + /ingest/<provider>/<id>; null for a provider
 * whose webhooks are not received (`git`, an import's).
 */
export function webhookUrl(publicBase: string, providers: ProviderCatalog, gitApp: Pick<GitApp, 'id' | 'provider'>): string | null {
  if (!providers.pushes(gitApp.provider)) return null;
  return `${publicBase}/ingest/${gitApp.provider}/${gitApp.id}`;
}

/** A git app as the CLI and the settings show it: whether it has a secret, never the secret. */
export function gitAppView(publicBase: string, providers: ProviderCatalog, g: GitApp) {
  return {
    id: g.id,
    organization_id: g.organization_id,
    provider: g.provider,
    name: g.name,
    is_active: Boolean(g.is_active),
    has_secret: g.webhook_secret !== null,
    previous_secret_accepted_until: previousSecretGraceEnd(g, new Date())?.toISOString() ?? null,
    webhook_url: webhookUrl(publicBase, providers, g),
    created_at: g.created_at.toISOString(),
  };
}

export type GitAppView = ReturnType<typeof gitAppView>;

/** Git apps, all or one organization's, oldest first. */
export async function listGitApps(publicBase: string, providers: ProviderCatalog, organizationId?: string): Promise<GitAppView[]> {
  const apps = await GitApp.findAll({ where: organizationId ? { organization_id: organizationId } : {}, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  return apps.map((g) => gitAppView(publicBase, providers, g));
}

/** A member's user name on a git app, as `/v1/users/{id}/git/apps` names its fields. */
export function gitUserLinkView(link: AccountLink) {
  return { git_app_id: link.connection_id, user_id: link.user_id, username: link.account, created_at: link.created_at.toISOString() };
}
