import path from 'node:path';
import express, { Router } from 'express';
import { PAGE_BUNDLE_DIR } from '../pages/bundles';
import { pageRouter } from '../pages/pageRouter';
import { PAGE_DIR } from './pageFiles';

/**
 * `/settings` ([settings.md](../../docs/settings.md#the-page-itself)): a small page that uses only the `settings.*`
 * procedures. Its markup and styles are served from src/settings/page, its scripts from the bundles `npm run build`
 * makes (scripts/buildPages.ts). Same origin as the API, so its session cookie and CSRF token go with every
 * call; no external assets and no inline script (the app-wide CSP allows none).
 */
export function settingsPageRoutes(): Router {
  const router = pageRouter(path.join(PAGE_DIR, 'index.html'));
  router.get('/settings.css', (_req, res) => res.sendFile(path.join(PAGE_DIR, 'settings.css')));
  router.use(express.static(PAGE_BUNDLE_DIR, { index: false, redirect: false }));
  return router;
}
