/**
 * Field parity over every saved page (../shared/fixtures/pages): what the service reads through
 * the browser grid equals what the parser makes of the saved file itself, field by field. The grid
 * reads with every shortcut it takes (no script runs, every subresource refused, the document's
 * bytes taken from the Fetch domain and its navigation aborted), so this is what shows
 * that none of them loses a field.
 * - Every saved page, those the manifest shadows with a newer page of the same marketplace + ASIN
 *   too (served from a folder of their own): the grid's bytes, decoded and parsed exactly as the
 *   service's read does (worker/identity/identity-reads.ts), give the same `PageParse` as the file.
 * - Pages a task turns into an observation (product, no_bsr, unavailable, not_found): read the way
 *   the product-read activity reads them, through `readWithIdentities` on a direct session
 *   (fingerprint, cookies) with the parse on a pool thread (worker/parser/parse-pool.ts, as the
 *   service parses), and its `parsed` is the file's parse.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MARKETPLACES, type Marketplace } from '../../core/marketplaces.js';
import type { PageParse } from '../../core/product.js';
import { loadManifest, type ReplayPage } from '../../replay/manifest.js';
import { createReplayHandler } from '../../replay/server.js';
import { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { readWithIdentities } from '../../worker/identity/identity-reads.js';
import { SourceIdentities } from '../../worker/identity/source-identities.js';
import { decodePage, parseProductPage } from '../../worker/parser/index.js';
import { ParsePool } from '../../worker/parser/parse-pool.js';
import { sharedPagesDir } from '../support/env.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';

/** One saved page, the marketplace it belongs to, and which replay folder answers for it. */
interface SavedPage {
  page: ReplayPage;
  marketplace: Marketplace;
  /** Index into {@link folders}: 0 is the shared folder itself. */
  folder: number;
}

/**
 * The replay folders that, together, answer every saved page: the shared folder, then, for rows
 * it shadows (an older page of the same marketplace + ASIN), temporary folders whose manifest
 * lists only those rows and whose files link to the shared pages (nothing is copied); a page saved
 * without an ASIN is given one there.
 */
const folders: string[] = [];
const saved: SavedPage[] = [];
if (!savedPages.missing) {
  const manifestText = fs.readFileSync(path.join(sharedPagesDir, 'MANIFEST.tsv'), 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = manifestText[0]!;
  const fileColumn = header.split('\t').indexOf('file');
  const asinColumn = header.split('\t').indexOf('asin');
  let rows = manifestText.slice(1);
  for (let dir = sharedPagesDir; rows.length > 0;) {
    const manifest = await loadManifest(dir);
    const answered = new Set([...manifest.pages.values()].map((p) => p.file));
    if (answered.size === 0) break;
    folders.push(dir);
    for (const page of manifest.pages.values()) {
      saved.push({ page: { ...page, filePath: path.join(sharedPagesDir, page.file) }, marketplace: MARKETPLACES.find((m) => m.domain === page.domain)!, folder: folders.length - 1 });
    }
    rows = rows.filter((row) => !answered.has(row.split('\t')[fileColumn]!.trim()));
    if (rows.length === 0) break;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parity-shadowed-'));
    // A page saved without an ASIN (a robot check, an error page) gets one here, so that a product URL reaches it.
    rows = rows.map((row, i) => {
      const cells = row.split('\t');
      if ((cells[asinColumn] ?? '').trim() === '') cells[asinColumn] = `PARITY${String(i).padStart(4, '0')}`;
      return cells.join('\t');
    });
    fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), `${[header, ...rows].join('\n')}\n`);
    for (const row of rows) {
      const file = row.split('\t')[fileColumn]!.trim();
      fs.symlinkSync(path.join(sharedPagesDir, file), path.join(dir, file));
    }
  }
  saved.sort((a, b) => a.page.file.localeCompare(b.page.file));
}

/** What the parser makes of the saved file, as the replay server serves it (`text/html`, no charset). */
function parseFile(page: ReplayPage, marketplace: Marketplace): PageParse {
  return parseProductPage(decodePage(fs.readFileSync(page.filePath), 'text/html'), marketplace);
}

const OBSERVATION_KINDS = new Set(['product', 'no_bsr', 'unavailable', 'not_found']);

describeNeeding([savedPages], 'field parity: the browser grid\'s read equals the parse of the saved file, every page', () => {
  /** One server for every folder: it answers from the folder of the page under test. */
  let source: http.Server;
  let current = 0;
  let grid: BrowserGrid;
  let parser: ParsePool;
  const identities = new SourceIdentities({ proxiesFor: () => [], maxBlockRate: 1, cooldownMs: 60_000, logger: pino({ level: 'silent' }) });

  beforeAll(async () => {
    const handlers = await Promise.all(folders.map(async (dir) => createReplayHandler(await loadManifest(dir))));
    source = http.createServer((req, res) => handlers[current]!(req, res));
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    parser = new ParsePool(1);
    grid = await BrowserGrid.start({ wsEndpoints: [], chromePath: resolveChromePath(process.env.CHROME_PATH), maxPages: 4, navTimeoutMs: 20_000, sourceOrigin: origin });
  });

  afterAll(async () => {
    await identities.close();
    await parser?.close();
    await grid?.close();
    source?.closeAllConnections();
    await new Promise((resolve) => source?.close(resolve));
    for (const dir of folders.slice(1)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('covers every saved page of the manifest', () => {
    const files = fs.readdirSync(sharedPagesDir).filter((f) => f.endsWith('.html')).sort((a, b) => a.localeCompare(b));
    expect(saved.map((s) => s.page.file)).toEqual(files);
    expect(saved.every((s) => s.marketplace !== undefined)).toBe(true);
  });

  it.each(saved.map((s) => [s.page.file, s] as const))('%s: same bytes and same fields through the grid', async (_file, { page, marketplace, folder }) => {
    current = folder;
    const read = await grid.read({ marketplace, asin: page.asin });
    try {
      expect(Buffer.from(read.bytes).equals(fs.readFileSync(page.filePath))).toBe(true);
      const throughGrid = parseProductPage(decodePage(read.bytes, read.contentType), marketplace);
      const fromFile = parseFile(page, marketplace);
      expect(throughGrid.kind).toBe(fromFile.kind);
      if (throughGrid.kind === 'product' && fromFile.kind === 'product') {
        for (const [field, value] of Object.entries(fromFile.fields)) {
          expect.soft((throughGrid.fields as Record<string, unknown>)[field], field).toEqual(value);
        }
      }
      expect(throughGrid).toEqual(fromFile);
    } finally {
      read.done?.();
    }
  });

  it.each(saved.filter((s) => OBSERVATION_KINDS.has(s.page.kind)).map((s) => [s.page.file, s] as const))(
    '%s: the product read\'s parse (direct session) equals the file\'s',
    async (_file, { page, marketplace, folder }) => {
      current = folder;
      const read = await readWithIdentities(
        { source: grid, identities, attempts: 1, parser, logger: pino({ level: 'silent' }) },
        { marketplace, asin: page.asin },
      );
      read.page.done?.();
      expect(read.parsed).toEqual(parseFile(page, marketplace));
    },
  );
});
