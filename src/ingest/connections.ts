import type { App, GitApp } from '../../db/models';
import { DomainError, invalid, notFound, unauthenticated } from '../errors';
import type { IntegrationProvider } from '../integrations/provider';
import type { AppWriter } from '../services/apps/apps';
import type { GitAppWriter } from '../services/git/apps/gitApps';
import type { StateOwner } from '../services/apps/connectionStates';
import type { TaskSource } from '../services/work/taskInput';
import { hasControlCharacters } from '../wire/text';

/**
 * Where a delivery is addressed: a git provider's deliveries go to a git app (`npm run gitapps`), every other
 * provider's to an app (`npm run apps`). Each is looked up, authenticated and limited alike; what differs is here.
 */
export type Connection = { kind: 'git_app'; gitApp: GitApp } | { kind: 'app'; app: App };

export interface ConnectionStores {
  gitApps: GitAppWriter;
  apps: AppWriter;
}

/** The name of the path's id segment, as the routes' help writes it. */
export const connectionIdName = (provider: IntegrationProvider) => (provider.category === 'git' ? '{git_app_id}' : '{app_id}');

/** The connection the URL names, when it takes this provider's deliveries and has a secret; before any body is read. */
export async function addressedConnection(provider: IntegrationProvider, id: string, stores: ConnectionStores): Promise<Connection> {
  // An id with a control character is nobody's, and is not looked up.
  const known = !hasControlCharacters(id);
  if (provider.category === 'git') {
    const gitApp = known ? await stores.gitApps.find(id) : null;
    if (!gitApp) throw notFound(`Git app not found: ${JSON.stringify(id)} (see npm run gitapps -- list)`);
    if (gitApp.provider !== provider.id) throw invalid(`Git app ${gitApp.id} is a ${gitApp.provider} app; this URL takes ${provider.name} deliveries`);
    if (!gitApp.webhook_secret) throw unauthenticated(`Git app ${gitApp.id} has no webhook secret yet: make one with npm run gitapps -- rotate-secret ${gitApp.id}`);
    return { kind: 'git_app', gitApp };
  }
  const app = known ? await stores.apps.find(id) : null;
  if (!app) throw notFound(`App not found: ${JSON.stringify(id)} (see npm run apps -- list)`);
  if (app.provider !== provider.id) throw invalid(`App ${app.id} is a ${app.provider} app; send its deliveries to /ingest/${app.provider}/${app.id}`);
  if (!app.webhook_secret) {
    throw unauthenticated(
      `App ${app.id} has no webhook secret yet: store the one its provider made (Linear, Slack and PagerDuty make their own) with npm run apps -- set-secret --app ${app.id} --secret-file <file>, or make one with npm run apps -- rotate-secret ${app.id}`,
    );
  }
  return { kind: 'app', app };
}

/** The secrets a delivery may prove now: the current one, and the previous one during a rotation's grace. */
export const secretsOf = (connection: Connection, stores: ConnectionStores, now: Date): string[] =>
  connection.kind === 'git_app' ? stores.gitApps.secretsOf(connection.gitApp, now) : stores.apps.secretsOf(connection.app, now);

/** Why an authenticated delivery is still refused: its connection is switched off. */
export function inactiveRefusal(connection: Connection): DomainError | undefined {
  if (connection.kind === 'git_app') return connection.gitApp.is_active ? undefined : new DomainError('forbidden', `Git app ${connection.gitApp.id} is inactive; deliveries to it are refused`);
  const { app } = connection;
  return app.is_active ? undefined : new DomainError('forbidden', `App ${app.id} is disabled; deliveries to it are refused until npm run apps -- enable ${app.id}`);
}

/** Whose state a delivery or a refusal is (the setup view's row, docs/settings.md#setup). */
export function stateOwnerOf(connection: Connection): StateOwner {
  const row = connection.kind === 'git_app' ? connection.gitApp : connection.app;
  return { connectionId: row.id, organizationId: row.organization_id };
}

/** The rate limit's key: each connection has its own budget. */
export const limitKey = (connection: Connection) => (connection.kind === 'git_app' ? `gapp:${connection.gitApp.id}` : `app:${connection.app.id}`);

/** What a translation may need of its connection. */
export const settingsOf = (connection: Connection) => ({ pointsField: connection.kind === 'app' ? connection.app.points_field : null });

/**
 * Whose tasks a delivery's are: an app's people are matched by their linked account ids, a git app's (its
 * repositories' issues) by their linked user names.
 */
export function taskSourceOf(connection: Connection): TaskSource {
  const row = connection.kind === 'git_app' ? connection.gitApp : connection.app;
  return { appId: row.id, organizationId: row.organization_id, provider: row.provider, accounts: connection.kind };
}
