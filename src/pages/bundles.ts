import path from 'node:path';
import { projectRoot } from '../projectRoot';

/**
 * Where scripts/buildPages.ts writes both pages' bundles (`settings.js`, `sign-in-link.js`, `dashboards.js`, with
 * their source maps): generated, never committed.
 */
export const PAGE_BUNDLE_DIR = path.join(projectRoot(), 'dist', 'settings-page');
