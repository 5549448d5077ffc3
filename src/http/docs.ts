import express, { Router } from 'express';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { pageSecurityPolicy } from '../wire/pagePolicy';

// Asset URLs are relative so the page does not depend on where the router is mounted.
const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Platform API reference</title>
    <link rel="stylesheet" href="./swagger-ui.css">
    <link rel="stylesheet" href="./index.css">
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js"></script>
    <script src="./swagger-initializer.js"></script>
  </body>
</html>
`;

// A file of its own because the CSP (script-src 'self') forbids inline scripts.
// validatorUrl: null keeps the page from calling validator.swagger.io (the machines may be offline).
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * The interactive API reference (swagger-ui-dist, served from this process: no CDN). Our page and initializer
 * are routed before the static files so swagger-ui-dist's own (which load the petstore) are never served.
 * Unknown files fall through to the app's 404 envelope.
 */
export function docsRouter(): Router {
  const router = Router();
  router.use(pageSecurityPolicy());
  const sendPage = (_req: express.Request, res: express.Response) => {
    res.type('html').send(PAGE);
  };
  router.get('/', (req, res) => {
    // Without the trailing slash the relative asset URLs would resolve against the site root.
    const url = new URL(req.originalUrl, 'http://localhost');
    if (!url.pathname.endsWith('/')) return res.redirect(301, `${url.pathname}/${url.search}`);
    sendPage(req, res);
  });
  router.get('/index.html', sendPage);
  router.get('/swagger-initializer.js', (_req, res) => {
    res.type('text/javascript').send(INITIALIZER);
  });
  router.use(express.static(getAbsoluteFSPath(), { index: false, redirect: false }));
  return router;
}
