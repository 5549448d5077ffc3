import { Router } from 'express';
import { pageSecurityPolicy } from '../wire/pagePolicy';

/** A page's router: the pages' CSP, never cached stale, and its markup at `/` (the address always with its slash). */
export function pageRouter(markupFile: string): Router {
  const router = Router();
  router.use(pageSecurityPolicy());
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-cache');
    next();
  });
  router.get('/', (req, res) => {
    const url = new URL(req.originalUrl, 'http://localhost');
    if (!url.pathname.endsWith('/')) return res.redirect(301, `${url.pathname}/${url.search}`);
    res.sendFile(markupFile);
  });
  return router;
}
