import path from 'node:path';
import { Router } from 'express';
import { PAGE_BUNDLE_DIR } from '../pages/bundles';
import { pageRouter } from '../pages/pageRouter';
import { DASHBOARDS_PAGE_DIR } from './pageFiles';

/**
 * `/dashboards` (docs/dashboards.md): the views one may open (`/dashboards/`), and one opened
 * (`/dashboards/{view_id}?organization_id=…|team_id=…&from=…&to=…&interval=…`), through `dashboards.*` only. The same
 * page answers every view's address; its script reads the address.
 */
export function dashboardsPageRoutes(): Router {
  const markup = path.join(DASHBOARDS_PAGE_DIR, 'dashboards.html');
  const router = pageRouter(markup);
  router.get('/dashboards.css', (_req, res) => res.sendFile(path.join(DASHBOARDS_PAGE_DIR, 'dashboards.css')));
  for (const file of ['dashboards.js', 'dashboards.js.map']) router.get(`/${file}`, (_req, res) => res.sendFile(path.join(PAGE_BUNDLE_DIR, file)));
  router.get('/:viewId', (_req, res) => res.sendFile(markup));
  return router;
}
