import path from 'node:path';
import { projectRoot } from '../projectRoot';

/** The page's markup and styles, served as they are. */
export const DASHBOARDS_PAGE_DIR = path.join(projectRoot(), 'src', 'dashboardsPage');

/** The page's TypeScript (checked by tsconfig.pages.json, which has the DOM library), bundled by scripts/buildPages.ts. */
export const DASHBOARDS_SCRIPT_DIR = path.join(DASHBOARDS_PAGE_DIR, 'script');
