/**
 * What the BrowserGrid test files share: the synthetic replay pages, the Chromium they launch, and
 * a recording test server for headers, cookies, blocked requests, concurrency, timeouts and
 * cancellation.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { resolveMarketplace, type Marketplace } from '../../core/marketplaces.js';
import type { BrowserGrid } from '../../worker/browser/browser-grid.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { BODY_CHUNK_BYTES } from '../../worker/browser/page-capture.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The synthetic replay pages (test/fixtures/replay). */
export const fixtures = path.resolve(here, '../fixtures/replay');
/** The Chromium the grids launch (CHROME_PATH, else the usual places). */
export const chromePath = resolveChromePath(process.env.CHROME_PATH);

/** The marketplace of `code` (`de`, `com`, …). */
export const mp = (code: string): Marketplace => resolveMarketplace(code)!;

/** A server that records what reaches it; product paths choose the behaviour by ASIN prefix. */
export class RecordingServer {
  readonly requests: { path: string; host: string; headers: http.IncomingHttpHeaders }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private readonly hanging = new Set<http.ServerResponse>();
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const urlPath = req.url ?? '/';
    this.requests.push({ path: urlPath, host: req.headers.host ?? '', headers: req.headers });
    const asin = /\/dp\/(\w+)/.exec(urlPath)?.[1] ?? '';
    const html = (body: string, status = 200): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`);
    };
    if (urlPath === '/asset/app.js') {
      // A parser-blocking script: keeps DOMContentLoaded waiting while the preload scanner
      // would already have requested the images, fonts and stylesheets below.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('window.appLoaded = true;');
      }, 300);
      return;
    }
    if (asin.startsWith('ECHO')) return html('<span id="productTitle">echo</span>');
    if (asin.startsWith('EMPTY')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': '0' });
      res.end();
      return;
    }
    if (asin.startsWith('LARGE')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=windows-1252' });
      res.end(largeBody());
      return;
    }
    if (asin.startsWith('SETCOOKIE')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'session-id=left-behind; Path=/; Max-Age=3600' });
      res.end('<!doctype html><html><body><script>localStorage.setItem("k", "left behind")</script></body></html>');
      return;
    }
    if (asin.startsWith('ASSETS')) {
      const other = this.url.replace('127.0.0.1', 'localhost');
      return html(`
        <style>@font-face { font-family: F; src: url(/asset/font.woff2) format("woff2"); } body { font-family: F; }</style>
        <link rel="stylesheet" href="/asset/style.css">
        <img src="/asset/pic.png" alt=""><img src="/asset/pic2.jpg" alt="">
        <video src="/asset/clip.mp4" autoplay muted></video>
        <script src="${other}/asset/other-origin.js"></script>
        <script src="/asset/app.js"></script>
        <p>text in font F</p>`);
    }
    if (asin.startsWith('CRUMB')) {
      // A same-origin redirect whose cookie lands in the read's context (the redirect is followed).
      res.writeHead(302, { location: urlPath.replace('/dp/CRUMB', '/dp/ECHOC'), 'set-cookie': 'crumb=left-behind; Path=/; Max-Age=3600' });
      res.end();
      return;
    }
    if (asin.startsWith('AWAY')) {
      res.writeHead(302, { location: `${this.url.replace('127.0.0.1', 'localhost')}/dp/${asin}` });
      res.end();
      return;
    }
    if (asin.startsWith('SLOW')) {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      setTimeout(() => {
        this.inFlight -= 1;
        html(`<span id="productTitle">${asin}</span>`);
      }, 400);
      return;
    }
    if (asin.startsWith('HANG')) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    html('not here', 404);
  }
}

/**
 * Every page and context closed and no read holding or awaiting a slot (a read's page closes when
 * its caller calls `done()`, or RELEASE_TIMEOUT_MS after it answered).
 */
export async function expectIdle(grid: BrowserGrid): Promise<void> {
  await expect.poll(() => {
    const stats = grid.stats();
    return { openPages: stats.openPages, openContexts: stats.openContexts, activeReads: stats.activeReads, queued: stats.queued };
  }, { timeout: 10_000 }).toEqual({ openPages: 0, openContexts: 0, activeReads: 0, queued: 0 });
}

/**
 * The renderer processes under the Chromium of `browserPid` (Linux /proc; a renderer is a child of
 * the zygote, itself a child of the browser).
 */
export function rendererPids(browserPid: number): Set<number> {
  const parentOf = new Map<number, number>();
  const renderers: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parentOf.get(pid), hops = 0; p !== undefined && p > 1 && hops < 10; p = parentOf.get(p), hops++) if (p === browserPid) return true;
    return false;
  };
  return new Set(renderers.filter(under));
}

/**
 * The body the recording server sends for `/dp/LARGE…`: 3.5 × the capture's body chunk
 * (page-capture.ts BODY_CHUNK_BYTES), every byte value 0–255 in turn, so a read must join chunks
 * that end mid-sequence to get it back byte for byte.
 */
export function largeBody(): Buffer {
  const bytes = Buffer.alloc(Math.round(BODY_CHUNK_BYTES * 3.5));
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}
