import { loadConfig } from '../../src/config';
import { removeTemplates } from './databaseTemplates';

/** Jest's global teardown: the run's database templates (databaseTemplates.ts), on the backend it used. */
export default async function globalTeardown(): Promise<void> {
  await removeTemplates(loadConfig().DATABASE_URL);
}
