import { GitApp } from '../../../../db/models';
import { INGEST_PROVIDERS, IngestProvider } from './gitApps';
import { previousSecretGraceEnd } from '../../../secrets/secretBox';

/** Where the provider sends an app's webhooks: the service's public base + /ingest/<provider>/<id>; null for a provider not received. */
export function webhookUrl(publicBase: string, gitApp: Pick<GitApp, 'id' | 'provider'>): string | null {
  if (!(INGEST_PROVIDERS as readonly string[]).includes(gitApp.provider)) return null;
  return `${publicBase}/ingest/${gitApp.provider}/${gitApp.id}`;
}

/** What to tick in the provider's webhook settings, said once by the CLI and the settings page. */
export const EVENTS_TO_TICK: Record<IngestProvider, string> = {
  github: 'Content type application/json; events: Pushes, Pull requests, Pull request reviews, Pull request review comments, Issue comments, Repositories, Deployment statuses, Issues',
  gitlab: 'Triggers: Push events (all branches), Merge request events, Comments, Deployment events, Issues events',
  bitbucket:
    'Repository settings → Webhooks → Add webhook (or Workspace settings → Webhooks, for all its repositories): Secret as above; Triggers: Repository Push, Updated; Pull Request Created, Updated, Approved, Approval removed, Changes request created, Merged, Declined, Comment created',
};

/** A git app as the CLI and the settings show it: whether it has a secret, never the secret. */
export function gitAppView(publicBase: string, g: GitApp) {
  return {
    id: g.id,
    organization_id: g.organization_id,
    provider: g.provider,
    name: g.name,
    is_active: Boolean(g.is_active),
    has_secret: g.webhook_secret !== null,
    previous_secret_accepted_until: previousSecretGraceEnd(g, new Date())?.toISOString() ?? null,
    webhook_url: webhookUrl(publicBase, g),
    created_at: g.created_at.toISOString(),
  };
}

export type GitAppView = ReturnType<typeof gitAppView>;

/** Git apps, all or one organization's, oldest first. */
export async function listGitApps(publicBase: string, organizationId?: string): Promise<GitAppView[]> {
  const apps = await GitApp.findAll({ where: organizationId ? { organization_id: organizationId } : {}, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  return apps.map((g) => gitAppView(publicBase, g));
}
