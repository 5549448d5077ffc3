import path from 'node:path';
import express, { Router } from 'express';
import { pageSecurityPolicy } from '../wire/pagePolicy';
import { projectRoot } from '../projectRoot';

/** The page's files, served as they are: plain HTML, CSS and a script, no build step. */
const PAGE_DIR = path.join(projectRoot(), 'src', 'settings', 'page');

/**
 * `/settings` (DESIGN §17): a small page that uses only the `settings.*` procedures. Same origin as the API, so its
 * session cookie and CSRF token go with every call; no external assets (the app-wide CSP allows none).
 */
export function settingsPageRoutes(): Router {
  const router = Router();
  router.use(pageSecurityPolicy());
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-cache');
    next();
  });
  router.get('/', (req, res) => {
    const url = new URL(req.originalUrl, 'http://localhost');
    if (!url.pathname.endsWith('/')) return res.redirect(301, `${url.pathname}/${url.search}`);
    res.sendFile(path.join(PAGE_DIR, 'index.html'));
  });
  router.use(express.static(PAGE_DIR, { index: false, redirect: false }));
  return router;
}
