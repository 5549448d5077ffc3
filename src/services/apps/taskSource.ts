import { App } from '../../../db/models';
import { invalid, notFound } from '../../errors';
import type { TaskSource } from '../work/taskInput';

/**
 * The app an import (npm run import -- jira|linear|slack) writes for: it exists, it is that provider's, and it is
 * enabled; each refusal says what to do.
 */
export async function importingApp(appId: string, provider: { id: string; name: string }): Promise<Pick<App, 'id' | 'organization_id' | 'provider' | 'points_field'>> {
  const app = await App.findByPk(appId, { attributes: ['id', 'organization_id', 'provider', 'is_active', 'points_field'] });
  if (!app) throw notFound(`No app ${appId} (see npm run apps -- list)`);
  if (app.provider !== provider.id) throw invalid(`App ${app.id} is a ${app.provider} app; this import reads ${provider.name}`);
  if (!app.is_active) throw invalid(`App ${app.id} is disabled; enable it first (npm run apps -- enable ${app.id})`);
  return app;
}

/** Where an import of a tracker's issues stores them: the app, with the field its story points are read from (Jira's is named per app). */
export async function trackerApp(appId: string, provider: { id: string; name: string }): Promise<{ source: TaskSource; pointsField: string | null }> {
  const app = await importingApp(appId, provider);
  return { source: { appId: app.id, organizationId: app.organization_id, provider: provider.id, accounts: 'app' }, pointsField: app.points_field };
}
