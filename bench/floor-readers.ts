/**
 * The two readers the service is compared with (bench/floor-compare.ts), each run in a process of
 * its own so that its CPU is counted apart from the service's: reads one JSON job on stdin, writes
 * one JSON line of results on stdout.
 * - `http`, the floor: HTTP GET of the page (keep-alive, `concurrency` at once) and parse5's
 *   `parse` of the decoded document; no browser.
 * - `puppeteer`, what most users would write instead of the service: puppeteer-core launching full
 *   Chromium in its default headless mode, as `puppeteer.launch()` does (`/usr/bin/chromium` when
 *   there, whatever binary the service reads with; `CHROME_PATH` overrides both), `concurrency`
 *   pages opened once and navigated in turn, JavaScript off, every request but the document aborted,
 *   `goto` (until DOMContentLoaded) + `content()`, then the same parse5 parse.
 * Both decode and parse exactly as much as the floor: the parse5 document of the whole page.
 * The job's `urls` are read `concurrency` at once (throughput and CPU of this process tree from
 * /proc, Chromium included); then `singles` one at a time, `gapMs` apart (latency of one read).
 */
import fs from 'node:fs';
import http from 'node:http';
import { parse } from 'parse5';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { LOCAL_CHROMIUM_ARGS } from '../worker/browser/browser-slot.js';
import { resolveChromePath } from '../worker/browser/chrome-path.js';
import { decodePage } from '../worker/parser/index.js';
import { cpuSnapshot, treeCpuMs } from './machine.js';

/** Full Chromium (Debian's `chromium`), which the plain puppeteer script launches when it is there. */
const FULL_CHROMIUM = '/usr/bin/chromium';

/** What the parent asks for. */
export interface FloorJob {
  mode: 'http' | 'puppeteer';
  /** Pages read `concurrency` at once, each once. */
  urls: string[];
  concurrency: number;
  /** Pages read one at a time afterwards, for the latency of one read. */
  singles: string[];
  /** Pause before each single read, ms. */
  gapMs: number;
  chromePath?: string;
}

/** What the child answers. */
export interface FloorAnswer {
  pages: number;
  /** Wall time of the concurrent reads, ms. */
  wallMs: number;
  /** CPU time of this process and its children (Chromium) during the concurrent reads, ms. */
  cpuMs: number;
  /** Latency of each single read, ms. */
  singleMs: number[];
  /** Reads that did not answer 200 or failed. */
  failures: string[];
}

/** One reader: reads `url` completely (bytes to parse5 document) on worker `slot`. */
type Reader = (url: string, slot: number) => Promise<void>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function httpReader(concurrency: number): { read: Reader; close(): Promise<void> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const get = (url: string): Promise<{ status: number; bytes: Buffer; contentType?: string }> =>
    new Promise((resolve, reject) => {
      http.get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), ...(res.headers['content-type'] && { contentType: res.headers['content-type'] }) }));
        res.on('error', reject);
      }).on('error', reject);
    });
  return {
    read: async (url) => {
      const res = await get(url);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      parse(decodePage(res.bytes, res.contentType));
    },
    close: async () => agent.destroy(),
  };
}

async function puppeteerReader(concurrency: number, chromePath: string | undefined): Promise<{ read: Reader; close(): Promise<void> }> {
  const executablePath = resolveChromePath(chromePath ?? (fs.existsSync(FULL_CHROMIUM) ? FULL_CHROMIUM : undefined));
  const browser: Browser = await puppeteer.launch({ executablePath, headless: true, args: [...LOCAL_CHROMIUM_ARGS] });
  const pages: Page[] = [];
  for (let i = 0; i < concurrency; i++) {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      void (request.resourceType() === 'document' ? request.continue() : request.abort()).catch(() => undefined);
    });
    pages.push(page);
  }
  return {
    read: async (url, slot) => {
      const page = pages[slot]!;
      const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      if (response?.status() !== 200) throw new Error(`HTTP ${response?.status()}`);
      parse(await page.content());
    },
    close: () => browser.close(),
  };
}

/** Reads every url once, `concurrency` at once; failures are collected, not thrown. */
async function readAll(read: Reader, urls: readonly string[], concurrency: number, failures: string[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async (_, slot) => {
    while (next < urls.length) {
      const url = urls[next++]!;
      await read(url, slot).catch((error: unknown) => failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }));
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const job = JSON.parse(input) as FloorJob;
const reader = job.mode === 'http' ? httpReader(job.concurrency) : await puppeteerReader(job.concurrency, job.chromePath);
const failures: string[] = [];
// Warm-up: connections, Chromium's renderers, the parser's code paths.
await readAll(reader.read, job.urls.slice(0, job.concurrency * 2), job.concurrency, []);
const cpu0 = cpuSnapshot();
const t0 = performance.now();
await readAll(reader.read, job.urls, job.concurrency, failures);
const wallMs = performance.now() - t0;
const pages = job.urls.length - failures.length;
const cpuMs = treeCpuMs(cpu0, cpuSnapshot(), process.pid);
const singleMs: number[] = [];
for (const url of job.singles) {
  await sleep(job.gapMs);
  const t = performance.now();
  try {
    await reader.read(url, 0);
    singleMs.push(performance.now() - t);
  } catch (error) {
    failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
await reader.close();
const answer: FloorAnswer = { pages, wallMs, cpuMs, singleMs, failures };
process.stdout.write(`${JSON.stringify(answer)}\n`);
process.exit(0);
