import { toApp } from '../../resources/integrations';
import { AiVendorSource, App, AppStatusOverride, Repository, Team } from '../../../db/models';
import type { AccountLink } from '../people/accountLinks';
import { HeldDays, heldDays, vendorSourceView } from './vendorSources';
import type { ChangeAuthority } from '../audit/actor';
import type { AppWriter, BoardMapping } from './apps';
import type { ProviderCatalog } from './catalog';
import { previousSecretGraceEnd } from '../../secrets/secretBox';

/**
 * Where the provider sends an app's webhooks: the service's public base + /ingest/<provider>/<id> (for `deployments`,
 * the base of its `/deployments` and `/incidents` endpoints); null for an AI vendor's app, which the service reads.
 */
export function appWebhookUrl(publicBase: string, providers: ProviderCatalog, app: Pick<App, 'id' | 'provider'>): string | null {
  if (!providers.pushes(app.provider)) return null;
  return `${publicBase}/ingest/${app.provider}/${app.id}`;
}

/**
 * An app as the CLI and the settings show it: whether it has a secret (for an AI vendor's app, a credential), never
 * the secret; for an AI vendor's app, how it is read and what its last pull did.
 */
export function appView(publicBase: string, providers: ProviderCatalog, a: App, source: AiVendorSource | null, held?: HeldDays) {
  return {
    ...toApp(a),
    has_secret: a.webhook_secret !== null || (source !== null && source.credential !== null),
    previous_secret_accepted_until: previousSecretGraceEnd(a, new Date())?.toISOString() ?? null,
    webhook_url: appWebhookUrl(publicBase, providers, a),
    points_field: a.points_field,
    vendor: source ? vendorSourceView(source, held) : null,
  };
}

export type AppView = ReturnType<typeof appView>;

/** One app as shown, its vendor source read when it has one. */
export async function describeApp(publicBase: string, providers: ProviderCatalog, a: App): Promise<AppView> {
  if (!providers.vendor(a.provider)) return appView(publicBase, providers, a, null);
  return appView(publicBase, providers, a, await AiVendorSource.findByPk(a.id), (await heldDays([a.id])).get(a.id));
}

/** Apps, all or one organization's, oldest first. */
export async function listApps(publicBase: string, providers: ProviderCatalog, organizationId?: string): Promise<AppView[]> {
  const apps = await App.findAll({ where: organizationId ? { organization_id: organizationId } : {}, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  const read = apps.filter((a) => providers.vendor(a.provider)).map((a) => a.id);
  const sources = new Map((read.length ? await AiVendorSource.findAll({ where: { app_id: read } }) : []).map((v) => [v.app_id, v]));
  const held = await heldDays(read);
  return apps.map((a) => appView(publicBase, providers, a, sources.get(a.id) ?? null, held.get(a.id)));
}

export function boardView(b: BoardMapping) {
  return { app_id: b.app_id, board: b.board_key, team_id: b.team_id, repository_id: b.repository_id, created_at: b.created_at.toISOString() };
}

export type BoardView = ReturnType<typeof boardView>;

export function statusOverrideView(o: AppStatusOverride) {
  return { status: o.status_name, category: o.category, created_at: o.created_at.toISOString() };
}

export function userLinkView(link: AccountLink) {
  return { app_id: link.connection_id, user_id: link.user_id, external_user_id: link.account, created_at: link.created_at.toISOString() };
}

/** An app's (or a git app's) boards and the status names it counts in another category, by name. */
export async function appMappings(apps: AppWriter, appId: string, by: ChangeAuthority = {}) {
  const boards = await apps.mappings(appId, by);
  const statuses = await AppStatusOverride.findAll({ where: { app_id: appId }, order: [['status_name', 'ASC']] });
  return { app_id: appId, boards: boards.map(boardView), statuses: statuses.map(statusOverrideView) };
}

export type AppMappings = Awaited<ReturnType<typeof appMappings>>;

/** The teams a board may be mapped to, by name: the settings page's choices. */
export async function teamsToMap(organizationId: string): Promise<{ id: string; name: string }[]> {
  const teams = await Team.findAll({ where: { organization_id: organizationId }, attributes: ['id', 'name'], order: [['name', 'ASC'], ['id', 'ASC']] });
  return teams.map((t) => ({ id: t.id, name: t.name }));
}

/** The repositories an incident tool's or the deployments API's board may be mapped to, by full name. */
export async function repositoriesToMap(organizationId: string): Promise<{ id: string; full_name: string }[]> {
  // Not those deleted at their provider and hidden until erased (docs/ingest.md#a-deleted-repository).
  const repositories = await Repository.findAll({ where: { organization_id: organizationId, deleted_at: null }, attributes: ['id', 'full_name'], order: [['full_name', 'ASC'], ['id', 'ASC']] });
  return repositories.map((r) => ({ id: r.id, full_name: r.full_name }));
}
