import { buildPages } from '../../scripts/buildPages';

/** Jest's global setup: the pages' bundles, from their current TypeScript (esbuild takes well under a second). */
export default async function globalSetup(): Promise<void> {
  await buildPages();
}
