import path from 'node:path';
import { projectRoot } from '../projectRoot';

/** The page's markup and styles, served as they are. */
export const PAGE_DIR = path.join(projectRoot(), 'src', 'settings', 'page');

/** The page's TypeScript (checked by tsconfig.pages.json, which has the DOM library), bundled by scripts/buildPages.ts. */
export const PAGE_SCRIPT_DIR = path.join(PAGE_DIR, 'script');
