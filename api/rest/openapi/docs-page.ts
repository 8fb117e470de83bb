/**
 * The rendered API reference at GET /docs: Swagger UI (the `swagger-ui-dist` package) reading
 * /openapi.json. Every file the page loads is served by the app itself under /docs/assets/, so the
 * page works without internet access; nothing comes from a CDN.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** Directory of the swagger-ui-dist package (its `getAbsoluteFSPath`). */
const swaggerUiDir = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();

/** Where the page's files come from: a file of swagger-ui-dist, or text generated here. */
type Asset = { type: string; file: string } | { type: string; text: string };

/** Starts Swagger UI on the document; no validator badge (it would call validator.swagger.io). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });
});
`;

/** The files of /docs/assets/{file}, by name. */
export const DOCS_ASSETS: Readonly<Record<string, Asset>> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: path.join(swaggerUiDir, 'swagger-ui.css') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: path.join(swaggerUiDir, 'swagger-ui-bundle.js') },
  'favicon-32x32.png': { type: 'image/png', file: path.join(swaggerUiDir, 'favicon-32x32.png') },
  'init.js': { type: 'text/javascript; charset=utf-8', text: INIT_SCRIPT },
};

/** The HTML of /docs; `title` is the document's title. Asset paths are absolute (/docs and /docs/ both work). */
export function docsPage(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escaped} — API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;
}
