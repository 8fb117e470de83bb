/**
 * Replay server: a stand-in for the marketplaces that serves saved product and search pages
 * (operations-contract.md "Replay server" and "replay of search pages").
 *
 *   npm run replay -- --dir <folder> [--port <n>] [--host <addr>]
 *
 * Routes
 * - `GET /<domain>/dp/<ASIN>` (`<domain>` like `www.amazon.de`; `amazon.de` works too; the ASIN is
 *   matched case-insensitively; a query string or trailing path segments are ignored): the page of
 *   that marketplace + ASIN from `MANIFEST.tsv`, its bytes exactly as saved, `Content-Type:
 *   text/html` (no charset: readers sniff the page's own declaration). Status by kind: product,
 *   no_bsr, unavailable, captcha -> 200; not_found -> 404; other -> 503. When several rows share
 *   marketplace + ASIN, the newest `approx_year` is served (see {@link loadManifest}).
 * - `GET /<domain>/s?k=<keyword>[&page=<n>]`: the search page of that marketplace, keyword and
 *   results page (default 1) from the manifest's rows of kind `search` or `no_results`, 200; the
 *   keyword matches ignoring case, with whitespace trimmed and collapsed. A keyword not in the
 *   manifest answers 200 with a small "No results for" page ({@link noResultsPage}).
 * - Any other path, or an ASIN not in the manifest: 404 with a small "Sorry! We couldn't find that
 *   page" page.
 * - `GET /_replay/hits`: JSON `{ "<path>": <requests> }` counting every request received except
 *   those to `/_replay/...` (search paths with their query string); `DELETE /_replay/hits` resets the counts (for tests).
 *
 * The manifest is read once at start; page files are read on each request.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { loadManifest, pageKey, searchKey, type ReplayManifest } from './manifest.js';

/** The page answered for unknown ASINs and paths (HTTP 404), shaped like the marketplace's own. */
export const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en-us"><head><meta charset="utf-8"><title>Page Not Found</title></head>
<body><div id="g"><a href="/"><img alt="Sorry! We couldn't find that page. Try searching or go to Amazon's home page." src="/error/title._TTD_.png"></a>
<p>Sorry! We couldn't find that page. Try searching or go to Amazon's home page.</p></div></body></html>
`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page answered for a keyword the manifest does not hold: the marketplace's "No results for"
 * message inside an empty result grid (no result card), as the search page contract's
 * `no_results` kind describes.
 */
export function noResultsPage(keyword: string): string {
  const shown = escapeHtml(keyword);
  return `<!doctype html>
<html lang="en-us"><head><meta charset="utf-8"><title>Amazon.com : ${shown}</title></head>
<body><div id="search"><div class="s-main-slot s-result-list s-search-results sg-row">
<div class="s-no-outline"><div class="a-section a-spacing-none"><span>No results for </span><span class="a-color-base a-text-bold">${shown}.</span></div>
<div class="a-section a-spacing-none"><span>Try checking your spelling or use more general terms</span></div></div>
</div></div></body></html>
`;
}

/** Options of {@link startReplayServer}. */
export interface ReplayServerOptions {
  /** Folder holding `MANIFEST.tsv` and the `<name>.html` pages. */
  dir: string;
  /** TCP port; 0 picks a free one. @default 8080 */
  port?: number;
  /** Listen address. @default "127.0.0.1" */
  host?: string;
}

/** A listening replay server. */
export interface ReplayServer {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:8080`; use as RETAIL_SOURCE_ORIGIN. */
  url: string;
  server: http.Server;
  manifest: ReplayManifest;
  /** Requests received per path (same data as `GET /_replay/hits`). */
  hits(): Record<string, number>;
  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void>;
}

const PRODUCT_PATH = /^\/([^/]+)\/dp\/([A-Za-z0-9]{10})(?:\/.*)?$/;
const SEARCH_PATH = /^\/([^/]+)\/s\/?$/;

/** `www.amazon.de` from the path's domain segment (`amazon.de` works too). */
function hostOf(segment: string): string {
  const domain = decodeURIComponent(segment).toLowerCase();
  return domain.startsWith('amazon.') ? `www.${domain}` : domain;
}

/**
 * Builds the request handler of a replay folder without listening (for embedding in other servers).
 * `hits` is the per-path counter it updates.
 */
export function createReplayHandler(
  manifest: ReplayManifest,
  hits: Map<string, number> = new Map(),
): http.RequestListener {
  return function replayHandler(req, res) {
    void handle(manifest, hits, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`replay server error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  };
}

async function handle(
  manifest: ReplayManifest,
  hits: Map<string, number>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://replay.invalid');
  const pathname = url.pathname;

  if (pathname === '/_replay/hits') {
    if (req.method === 'DELETE') hits.clear();
    else if (req.method !== 'GET' && req.method !== 'HEAD') return void methodNotAllowed(res, 'GET, HEAD, DELETE');
    const body = JSON.stringify(Object.fromEntries(hits));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const search = SEARCH_PATH.exec(pathname);
  // Search pages differ only by their query: each keyword and page is counted apart.
  const hitKey = search ? `${pathname}${url.search}` : pathname;
  hits.set(hitKey, (hits.get(hitKey) ?? 0) + 1);
  if (req.method !== 'GET' && req.method !== 'HEAD') return void methodNotAllowed(res, 'GET, HEAD');

  const keyword = url.searchParams.get('k');
  if (search && keyword !== null) {
    const resultsPage = Number.parseInt(url.searchParams.get('page') ?? '1', 10);
    const page = manifest.searches.get(searchKey(hostOf(search[1] ?? ''), keyword, Number.isInteger(resultsPage) && resultsPage > 0 ? resultsPage : 1));
    return void send(req, res, page?.status ?? 200, page ? await fs.readFile(page.filePath) : Buffer.from(noResultsPage(keyword), 'utf8'));
  }

  const match = PRODUCT_PATH.exec(pathname);
  const page = match ? manifest.pages.get(pageKey(hostOf(match[1] ?? ''), match[2] ?? '')) : undefined;
  send(req, res, page?.status ?? 404, page ? await fs.readFile(page.filePath) : Buffer.from(NOT_FOUND_PAGE, 'utf8'));
}

function send(req: http.IncomingMessage, res: http.ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, {
    'content-type': 'text/html',
    'content-length': body.length,
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function methodNotAllowed(res: http.ServerResponse, allow: string): void {
  res.writeHead(405, { allow, 'content-type': 'text/plain; charset=utf-8' });
  res.end('method not allowed\n');
}

/**
 * Loads the folder's manifest and starts listening.
 * @throws when the manifest cannot be read or the port cannot be bound.
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const manifest = await loadManifest(options.dir);
  const hits = new Map<string, number>();
  const server = http.createServer(createReplayHandler(manifest, hits));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    server,
    manifest,
    hits: () => Object.fromEntries(hits),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('not a TCP port');
  return port;
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('replay')
    .description('Serve saved product and search pages as a stand-in for the marketplaces (operations-contract.md).')
    .requiredOption('--dir <folder>', 'folder with MANIFEST.tsv and <name>.html pages')
    .option('--port <n>', 'TCP port', parsePort, 8080)
    .option('--host <addr>', 'listen address', '127.0.0.1')
    .parse(argv);
  const opts = program.opts<{ dir: string; port: number; host: string }>();
  const replay = await startReplayServer({ dir: opts.dir, port: opts.port, host: opts.host });
  for (const warning of replay.manifest.warnings) process.stderr.write(`replay: ${warning}\n`);
  process.stdout.write(
    `replay server listening on ${replay.url} (${replay.manifest.pages.size} product pages, ${replay.manifest.searches.size} search pages from ${path.resolve(opts.dir)})\n`,
  );
  const stop = (): void => void replay.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main(process.argv).catch((error: unknown) => {
    process.stderr.write(`replay: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
