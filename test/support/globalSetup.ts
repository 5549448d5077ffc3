import { buildSettingsPage } from '../../scripts/buildSettingsPage';

/** Jest's global setup: the settings page's bundles, from its current TypeScript (esbuild takes well under a second). */
export default async function globalSetup(): Promise<void> {
  await buildSettingsPage();
}
