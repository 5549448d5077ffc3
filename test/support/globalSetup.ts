import { randomBytes } from 'node:crypto';
import { buildPages } from '../../scripts/buildPages';
import { buildServer } from '../../scripts/build';
import { beginTemplateRun } from './databaseTemplates';

/**
 * Jest's global setup: the pages' bundles and the build the operator CLIs run from (dist/, test/support/cli.ts),
 * both from the current TypeScript (esbuild: well under a second each), and the run's name, which its test apps'
 * database templates carry (databaseTemplates.ts).
 */
export default async function globalSetup(): Promise<void> {
  await Promise.all([buildPages(), buildServer()]);
  beginTemplateRun(randomBytes(3).toString('hex'));
}
