import path from 'node:path';
import { Router } from 'express';
import type { Response } from 'express';

/**
 * The API reference for people: `GET /docs`, Swagger UI (the `swagger-ui-dist` package, served
 * from node_modules; no CDN, nothing fetched from elsewhere) rendering the same OpenAPI document
 * as `GET /api/v1/openapi.json`. Outside /api/v1, so browsers are welcome; no API key.
 *
 * The page is read-only: "Try it out" is off (the API refuses browser requests anyway)
 * and so is Swagger's online validator badge. The document is served again at /docs/openapi.json
 * because the page's own request for it carries Sec-Fetch-* headers, which /api/v1 refuses.
 */

/** The files of swagger-ui-dist the page uses; nothing else of node_modules is reachable. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Where swagger-ui-dist is installed; its `absolute-path` entry, not the main one, which would load the whole UI bundle into the gateway. */
function swaggerUiDir(): string {
  return (require('swagger-ui-dist/absolute-path.js') as () => string)();
}

/** Only our own files, script included: no inline script, nothing from another origin. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes on elements it renders.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>svc — API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  </head>
  <body>
    <noscript>This page needs JavaScript. The same reference is available as an OpenAPI 3.1 document at <a href="/docs/openapi.json">/docs/openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `'use strict';
window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayOperationId: true,
  showExtensions: true,
  supportedSubmitMethods: [],
  tryItOutEnabled: false,
  validatorUrl: null,
});
`;

export function pageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

export function docsRoutes(document: object): Router {
  const r = Router();
  const dir = swaggerUiDir();
  const documentJson = JSON.stringify(document);

  r.get('/docs', (_req, res) => {
    pageHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).type('html').send(PAGE);
  });
  r.get('/docs/init.js', (_req, res) => {
    pageHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).type('application/javascript; charset=utf-8').send(INIT);
  });
  r.get('/docs/openapi.json', (_req, res) => {
    pageHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).type('application/json').send(documentJson);
  });
  r.get('/docs/assets/:file', (req, res, next) => {
    const file = String(req.params.file);
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) return next();
    pageHeaders(res);
    res.sendFile(path.join(dir, file), { headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' } }, (err) => {
      if (err) next(err);
    });
  });
  return r;
}
