import path from 'node:path';
import { projectRoot } from '../projectRoot';

/** The page's markup and styles, served as they are. */
export const PAGE_DIR = path.join(projectRoot(), 'src', 'settings', 'page');

/** The page's TypeScript (with its own tsconfig, which has the DOM library), bundled by scripts/buildSettingsPage.ts. */
export const PAGE_SCRIPT_DIR = path.join(PAGE_DIR, 'script');

/** Where the bundles are written (`settings.js`, `sign-in-link.js`), generated, never committed. */
export const PAGE_BUNDLE_DIR = path.join(projectRoot(), 'dist', 'settings-page');
