import path from 'node:path';
import express, { Router } from 'express';
import { pageSecurityPolicy } from '../wire/pagePolicy';
import { PAGE_BUNDLE_DIR, PAGE_DIR } from './pageFiles';

/**
 * `/settings` ([settings.md](../../docs/settings.md#the-page-itself)): a small page that uses only the `settings.*`
 * procedures. Its markup and styles are served from src/settings/page, its scripts from the bundles `npm run build`
 * makes (scripts/buildSettingsPage.ts). Same origin as the API, so its session cookie and CSRF token go with every
 * call; no external assets and no inline script (the app-wide CSP allows none).
 */
export function settingsPageRoutes(): Router {
  const router = pageRouter('index.html');
  router.get('/settings.css', (_req, res) => res.sendFile(path.join(PAGE_DIR, 'settings.css')));
  router.use(express.static(PAGE_BUNDLE_DIR, { index: false, redirect: false }));
  return router;
}

/**
 * `/dashboards` (docs/dashboards.md): the views one may open (`/dashboards/`), and one opened
 * (`/dashboards/{view_id}?organization_id=…|team_id=…&from=…&to=…&interval=…`), through `dashboards.*` only. The same
 * page answers every view's address; its script reads the address.
 */
export function dashboardsPageRoutes(): Router {
  const router = pageRouter('dashboards.html');
  router.get('/dashboards.css', (_req, res) => res.sendFile(path.join(PAGE_DIR, 'dashboards.css')));
  for (const file of ['dashboards.js', 'dashboards.js.map']) router.get(`/${file}`, (_req, res) => res.sendFile(path.join(PAGE_BUNDLE_DIR, file)));
  router.get('/:viewId', (_req, res) => res.sendFile(path.join(PAGE_DIR, 'dashboards.html')));
  return router;
}

/** A page's router: the pages' CSP, never cached stale, and its markup at `/` (the address always with its slash). */
function pageRouter(markup: string): Router {
  const router = Router();
  router.use(pageSecurityPolicy());
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-cache');
    next();
  });
  router.get('/', (req, res) => {
    const url = new URL(req.originalUrl, 'http://localhost');
    if (!url.pathname.endsWith('/')) return res.redirect(301, `${url.pathname}/${url.search}`);
    res.sendFile(path.join(PAGE_DIR, markup));
  });
  return router;
}
