/**
 * The replay server (operations-contract.md "Replay server") against the synthetic pages in
 * test/fixtures/replay, plus a smoke test over the shared saved pages when they are present.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNeeding, savedPages, savedSearchPages } from '../support/prerequisites.js';
import { loadManifest } from '../../replay/manifest.js';
import { startReplayServer, type ReplayServer } from '../../replay/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../fixtures/replay');
const sharedPages = path.resolve(here, '../../../shared/fixtures/pages');
const sharedSearchPages = path.resolve(here, '../../../shared/fixtures/search');

const fixture = (name: string): Buffer => fs.readFileSync(path.join(fixtures, name));

async function get(replay: ReplayServer, urlPath: string, init?: RequestInit) {
  const response = await fetch(`${replay.url}${urlPath}`, init);
  return { status: response.status, contentType: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

describe('replay server (synthetic fixtures)', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplayServer({ dir: fixtures, port: 0 });
  });
  afterAll(async () => {
    await replay.close();
  });

  it('serves product, no_bsr and unavailable pages with 200 and the exact bytes', async () => {
    for (const [urlPath, file] of [
      ['/www.amazon.de/dp/B0000000P1', 'de_B0000000P1.html'],
      ['/www.amazon.com/dp/B0000000N1', 'com_B0000000N1.html'],
      ['/www.amazon.co.uk/dp/B0000000U1', 'co.uk_B0000000U1.html'],
    ] as const) {
      const response = await get(replay, urlPath);
      expect(response.status, urlPath).toBe(200);
      expect(response.contentType).toBe('text/html');
      expect(response.body.equals(fixture(file)), urlPath).toBe(true);
    }
  });

  it('passes non-UTF-8 pages through byte for byte', async () => {
    const response = await get(replay, '/www.amazon.co.jp/dp/B0000000J1');
    expect(response.status).toBe(200);
    expect(response.body.equals(fixture('co.jp_B0000000J1.html'))).toBe(true);
  });

  it('answers a captcha page with 200 and the captcha page', async () => {
    const response = await get(replay, '/www.amazon.com.br/dp/B0000000C1');
    expect(response.status).toBe(200);
    expect(response.body.equals(fixture('com.br_B0000000C1.html'))).toBe(true);
  });

  it('answers not_found with 404 and the saved page', async () => {
    const response = await get(replay, '/www.amazon.com/dp/B0000000F1');
    expect(response.status).toBe(404);
    expect(response.body.equals(fixture('com_B0000000F1.html'))).toBe(true);
  });

  it('answers other with 503 and the saved page', async () => {
    const response = await get(replay, '/www.amazon.com/dp/B0000000O1');
    expect(response.status).toBe(503);
    expect(response.body.equals(fixture('com_B0000000O1.html'))).toBe(true);
  });

  it('answers an ASIN not in the manifest with 404 and a not-found page', async () => {
    for (const urlPath of [
      '/www.amazon.de/dp/B0000000ZZ',
      '/www.amazon.fr/dp/B0000000P1', // known ASIN, other marketplace
      '/www.amazon.de/gp/product/B0000000P1', // not a product path
      '/',
    ]) {
      const response = await get(replay, urlPath);
      expect(response.status, urlPath).toBe(404);
      expect(response.body.toString('utf8'), urlPath).toContain("Sorry! We couldn't find that page");
    }
  });

  it('matches the ASIN case-insensitively and ignores query strings and trailing segments', async () => {
    const page = fixture('de_B0000000P1.html');
    for (const urlPath of ['/www.amazon.de/dp/b0000000p1', '/www.amazon.de/dp/B0000000P1?th=1&psc=1', '/www.amazon.de/dp/B0000000P1/ref=sr_1_1', '/amazon.de/dp/B0000000P1']) {
      const response = await get(replay, urlPath);
      expect(response.status, urlPath).toBe(200);
      expect(response.body.equals(page), urlPath).toBe(true);
    }
  });

  it('serves the newest approx_year when rows share marketplace and ASIN', async () => {
    const response = await get(replay, '/www.amazon.com/dp/B0000000D1');
    expect(response.body.equals(fixture('com_B0000000D1.html'))).toBe(true);
  });

  it('on equal years serves the observation page rather than the captcha', async () => {
    const response = await get(replay, '/www.amazon.com/dp/B0000000T1');
    expect(response.status).toBe(200);
    expect(response.body.equals(fixture('com_B0000000T1.html'))).toBe(true);
  });

  it('skips rows without ASIN or file and reports them', async () => {
    const manifest = await loadManifest(fixtures);
    expect([...manifest.pages.values()].map((p) => p.file)).not.toContain('com_noasin_captcha.html');
    expect(manifest.pages.has('www.amazon.com/B0000000M1')).toBe(false);
    expect(manifest.warnings.join('\n')).toMatch(/com_noasin_captcha\.html: no asin/);
    expect(manifest.warnings.join('\n')).toMatch(/com_B0000000M1\.html: file missing/);
    expect(manifest.warnings.join('\n')).toMatch(/com_B0000000D1_2017\.html: shadowed by com_B0000000D1\.html/);
    expect((await get(replay, '/www.amazon.com/dp/B0000000M1')).status).toBe(404);
  });

  it('counts requests per path at /_replay/hits (and resets them with DELETE)', async () => {
    await get(replay, '/_replay/hits', { method: 'DELETE' });
    await get(replay, '/www.amazon.de/dp/B0000000P1');
    await get(replay, '/www.amazon.de/dp/B0000000P1?x=1');
    await get(replay, '/www.amazon.com/dp/B0000000O1');
    await get(replay, '/www.amazon.de/dp/B0000000ZZ');
    const response = await get(replay, '/_replay/hits');
    expect(response.status).toBe(200);
    expect(response.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(response.body.toString('utf8'))).toEqual({
      '/www.amazon.de/dp/B0000000P1': 2,
      '/www.amazon.com/dp/B0000000O1': 1,
      '/www.amazon.de/dp/B0000000ZZ': 1,
    });
    expect(replay.hits()).toEqual(JSON.parse(response.body.toString('utf8')));
  });

  it('refuses methods other than GET and HEAD on pages', async () => {
    expect((await get(replay, '/www.amazon.de/dp/B0000000P1', { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${replay.url}/www.amazon.de/dp/B0000000P1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

describe('replay server command line', () => {
  it('prints one line with its URL and serves the folder', async () => {
    const root = path.resolve(here, '../..');
    const child = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'replay/server.ts', '--dir', fixtures, '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`replay exited with ${code}`)));
      });
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      expect(line).toMatch(/^replay server listening on http:\/\/127\.0\.0\.1:\d+ /);
      const response = await fetch(`${url}/www.amazon.de/dp/B0000000P1`);
      expect(response.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('replay server (search pages)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-search-'));
  const card = (asin: string): string => `<div data-component-type="s-search-result" data-asin="${asin}"><h2>${asin}</h2></div>`;
  const pages = {
    'com_search_led.html': `<html><body>${card('B0000000S1')}</body></html>`,
    'com_search_led_p2.html': `<html><body>${card('B0000000S2')}</body></html>`,
    'de_search_katze.html': `<html><body>${card('B0000000S3')}</body></html>`,
    'com_search_none.html': '<html><body><span>No results for </span><span>zzqx</span></body></html>',
    'com_search_nokeyword.html': '<html></html>',
    'com_search_robot.html': '<html><body><form action="/errors/validateCaptcha">Type the characters you see</form></body></html>',
    'com_search_down.html': '<html><body>Something went wrong</body></html>',
  };
  let replay: ReplayServer;
  beforeAll(async () => {
    for (const [file, html] of Object.entries(pages)) fs.writeFileSync(path.join(dir, file), html);
    fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), [
      'file\tmarketplace\tasin\tkind\tkeyword\tpage',
      'com_search_led.html\tcom\t\tsearch\tLED  Strip Lights\t',
      'com_search_led_p2.html\tcom\t\tsearch\tled strip lights\t2',
      'de_search_katze.html\tde\t\tsearch\tKatzenfutter\t1',
      'com_search_none.html\tcom\t\tno_results\tzzqx\t',
      'com_search_nokeyword.html\tcom\t\tsearch\t\t',
      'com_search_robot.html\tcom\t\tcaptcha\trobot keyword\t',
      'com_search_down.html\tcom\t\tother\tdown keyword\t',
    ].join('\n'));
    replay = await startReplayServer({ dir, port: 0 });
  });
  afterAll(async () => {
    await replay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const bytes = (file: keyof typeof pages): Buffer => Buffer.from(pages[file], 'utf8');

  it('serves the page of the keyword, ignoring case and collapsing whitespace, with 200', async () => {
    for (const query of ['k=LED+Strip+Lights', 'k=led%20strip%20lights', 'k=%20Led%20%20strip%09lights%20', 'k=led+strip+lights&page=1']) {
      const response = await get(replay, `/www.amazon.com/s?${query}`);
      expect(response.status, query).toBe(200);
      expect(response.body.equals(bytes('com_search_led.html')), query).toBe(true);
    }
    expect((await get(replay, '/amazon.de/s?k=katzenfutter')).body.equals(bytes('de_search_katze.html'))).toBe(true);
  });

  it('serves the results page the page parameter names', async () => {
    const response = await get(replay, '/www.amazon.com/s?k=led+strip+lights&page=2');
    expect(response.body.equals(bytes('com_search_led_p2.html'))).toBe(true);
  });

  it('serves no_results rows as saved, and answers an unknown keyword or page with a no-results page', async () => {
    expect((await get(replay, '/www.amazon.com/s?k=zzqx')).body.equals(bytes('com_search_none.html'))).toBe(true);
    for (const urlPath of ['/www.amazon.com/s?k=%3Cscript%3Ex', '/www.amazon.com/s?k=led+strip+lights&page=3', '/www.amazon.de/s?k=LED+Strip+Lights']) {
      const response = await get(replay, urlPath);
      expect(response.status, urlPath).toBe(200);
      const html = response.body.toString('utf8');
      expect(html, urlPath).toContain('No results for');
      expect(html, urlPath).not.toContain('data-component-type="s-search-result"');
      expect(html, urlPath).not.toContain('<script>');
    }
  });

  it('serves a captcha or error row saved at a search path with its kind\'s status', async () => {
    const robot = await get(replay, '/www.amazon.com/s?k=Robot+Keyword');
    expect(robot.status).toBe(200);
    expect(robot.body.equals(bytes('com_search_robot.html'))).toBe(true);
    const down = await get(replay, '/www.amazon.com/s?k=down+keyword');
    expect(down.status).toBe(503);
    expect(down.body.equals(bytes('com_search_down.html'))).toBe(true);
  });

  it('skips a search row without keyword and reports it', () => {
    expect(replay.manifest.searches.size).toBe(6);
    expect(replay.manifest.warnings).toContain('com_search_nokeyword.html: no keyword, not addressable');
  });

  it('counts each keyword and page apart at /_replay/hits', async () => {
    await get(replay, '/_replay/hits', { method: 'DELETE' });
    await get(replay, '/www.amazon.de/s?k=Katzenfutter');
    await get(replay, '/www.amazon.de/s?k=Katzenfutter');
    await get(replay, '/www.amazon.de/s?k=Katzenfutter&page=2');
    const hits = JSON.parse((await get(replay, '/_replay/hits')).body.toString('utf8')) as Record<string, number>;
    expect(hits).toEqual({ '/www.amazon.de/s?k=Katzenfutter': 2, '/www.amazon.de/s?k=Katzenfutter&page=2': 1 });
  });
});

describeNeeding([savedSearchPages], 'replay server (shared saved search pages)', () => {
  it('serves every saved search page for its keyword and page', async () => {
    const replay = await startReplayServer({ dir: sharedSearchPages, port: 0 });
    try {
      expect(replay.manifest.searches.size).toBeGreaterThan(0);
      for (const page of replay.manifest.searches.values()) {
        const query = new URLSearchParams({ k: page.search!.keyword, page: String(page.search!.page) });
        const response = await get(replay, `/${page.domain}/s?${query}`);
        expect(response.status, page.file).toBe(200);
        expect(response.body.equals(fs.readFileSync(page.filePath)), page.file).toBe(true);
      }
    } finally {
      await replay.close();
    }
  });
});

describeNeeding([savedPages], 'replay server (shared saved pages)', () => {
  it('serves every addressable saved page with the status of its kind', async () => {
    const replay = await startReplayServer({ dir: sharedPages, port: 0 });
    try {
      expect(replay.manifest.pages.size).toBeGreaterThan(0);
      for (const page of replay.manifest.pages.values()) {
        const response = await get(replay, `/${page.domain}/dp/${page.asin}`);
        expect(response.status, page.file).toBe(page.status);
        expect(response.body.equals(fs.readFileSync(page.filePath)), page.file).toBe(true);
      }
      // Duplicates resolve to the newest saved page.
      const dup = replay.manifest.pages.get('www.amazon.com/B0011UCPM4');
      if (dup) expect(dup.file).toBe('com_B0011UCPM4.html');
    } finally {
      await replay.close();
    }
  });
});

if (!fs.existsSync(path.join(sharedPages, 'MANIFEST.tsv'))) {
  console.warn(`replay-server.test: ${sharedPages}/MANIFEST.tsv not found; shared-pages smoke test skipped`);
}
