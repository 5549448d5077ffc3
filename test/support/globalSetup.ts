import { randomBytes } from 'node:crypto';
import { buildPages } from '../../scripts/buildPages';
import { beginTemplateRun } from './databaseTemplates';

/**
 * Jest's global setup: the pages' bundles, from their current TypeScript (esbuild takes well under a second), and
 * the run's name, which its test apps' database templates carry (databaseTemplates.ts).
 */
export default async function globalSetup(): Promise<void> {
  await buildPages();
  beginTemplateRun(randomBytes(3).toString('hex'));
}
