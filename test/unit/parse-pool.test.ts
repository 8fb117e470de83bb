/**
 * The parse pool (worker/parser/parse-pool.ts): a page parsed on a pool thread gives what the
 * parser gives on the calling thread, for every saved page; the bytes move to the thread (a whole
 * buffer is transferred, a view of a larger one copied); the calling thread's event loop keeps
 * turning while a page is parsed; a failed parse reaches the caller; PARSE_THREADS' default.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MARKETPLACES, type Marketplace } from '../../core/marketplaces.js';
import { loadManifest } from '../../replay/manifest.js';
import { ParsePool, defaultParseThreads, inlinePageParser } from '../../worker/parser/parse-pool.js';
import { sharedPagesDir } from '../support/env.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { threadNices } from '../support/processes.js';

const pages: { file: string; bytes: Buffer; marketplace: Marketplace }[] = [];
if (!savedPages.missing) {
  const manifest = await loadManifest(sharedPagesDir);
  for (const page of manifest.pages.values()) {
    pages.push({ file: page.file, bytes: fs.readFileSync(path.join(sharedPagesDir, page.file)), marketplace: MARKETPLACES.find((m) => m.domain === page.domain)! });
  }
}

/** A page's bytes in a buffer of their own (the pool takes that buffer over). */
const copy = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

describeNeeding([savedPages], 'parse pool: pages parsed on worker threads', () => {
  let pool: ParsePool;
  beforeAll(() => {
    pool = new ParsePool(2);
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('parses every saved page as the calling thread does, several at once', async () => {
    expect(pages.length).toBeGreaterThan(10);
    const inThreads = await Promise.all(pages.map((p) => pool.parse(copy(p.bytes), 'text/html', p.marketplace)));
    for (const [i, p] of pages.entries()) {
      const inline = await inlinePageParser.parse(p.bytes, 'text/html', p.marketplace);
      expect(inThreads[i]!.parsed, p.file).toEqual(inline.parsed);
      expect(inThreads[i]!.parseMs).toBeGreaterThan(0);
    }
  });

  it('a view into a larger buffer is parsed as its own bytes, copied: the caller\'s buffer stays as it was', async () => {
    const p = pages.find((x) => x.bytes.length > 1000)!;
    const larger = new Uint8Array(p.bytes.length + 64);
    larger.set(p.bytes, 32);
    const view = larger.subarray(32, 32 + p.bytes.length);
    expect((await pool.parse(view, 'text/html', p.marketplace)).parsed).toEqual((await inlinePageParser.parse(p.bytes, 'text/html', p.marketplace)).parsed);
    expect(view.length).toBe(p.bytes.length);
    expect(Buffer.from(view).equals(p.bytes)).toBe(true);
  });

  it('the whole buffer of a page moves to the thread: the caller\'s array is left empty', async () => {
    const p = pages.find((x) => x.bytes.length > 1000)!;
    const bytes = copy(p.bytes);
    expect((await pool.parse(bytes, 'text/html', p.marketplace)).parsed).toEqual((await inlinePageParser.parse(p.bytes, 'text/html', p.marketplace)).parsed);
    expect(bytes.length).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
  });

  it('the calling thread\'s event loop turns while a page is parsed (the inline parser holds it)', async () => {
    const p = pages.reduce((a, b) => (b.bytes.length > a.bytes.length ? b : a));
    const turnsDuring = async (parse: () => Promise<unknown>) => {
      let turns = 0;
      let done = false;
      const tick = () => {
        turns++;
        if (!done) setImmediate(tick);
      };
      setImmediate(tick);
      await parse();
      done = true;
      return turns;
    };
    expect(await turnsDuring(() => pool.parse(copy(p.bytes), 'text/html', p.marketplace))).toBeGreaterThan(1);
    expect(await turnsDuring(() => inlinePageParser.parse(p.bytes, 'text/html', p.marketplace))).toBe(0);
  });

  it('a parse that fails rejects with the thread\'s error', async () => {
    const p = pages[0]!;
    await expect(pool.parse(copy(p.bytes), 'text/html', { ...p.marketplace, code: 'xx' as Marketplace['code'] })).rejects.toThrow('unknown marketplace xx');
  });

  it('its threads take the nice value they are given; the calling thread keeps its own', async () => {
    const niced = () => threadNices(process.pid).filter((nice) => nice === 10).length;
    const before = niced();
    const nicePool = new ParsePool(2, undefined, 10);
    try {
      const page = pages[0]!;
      await Promise.all([nicePool.parse(copy(page.bytes), undefined, page.marketplace), nicePool.parse(copy(page.bytes), undefined, page.marketplace)]);
      expect(niced() - before).toBe(2);
      expect(os.getPriority(0)).toBe(0);
    } finally {
      await nicePool.close();
    }
  });
});

it('a thread that fails between parses is reported and replaced; the process goes on and the next parse is answered', async () => {
  const failures: Error[] = [];
  const pool = new ParsePool(1, (error) => failures.push(error));
  try {
    const piscina = (pool as unknown as { pool: { threads: import('node:worker_threads').Worker[] } }).pool;
    await expect.poll(() => piscina.threads.length).toBe(1);
    const [thread] = piscina.threads;
    // What a thread's uncaught exception raises on its Worker; piscina turns it into its own `error` event.
    thread!.emit('error', new Error('thrown by a stray callback in the thread'));
    expect(failures.map((e) => e.message)).toEqual(['thrown by a stray callback in the thread']);
    const page = Buffer.from('<!doctype html><html><head><title>Ok</title></head><body><span id="productTitle">A lamp</span></body></html>');
    const { parsed } = await pool.parse(page, 'text/html', MARKETPLACES.find((m) => m.code === 'com')!);
    expect(parsed).toBeDefined();
    expect(piscina.threads).not.toContain(thread);
  } finally {
    await pool.close();
  }
});

it('PARSE_THREADS unset: one thread per core beyond the first, at least 1, at most 2', () => {
  expect([1, 2, 3, 4, 16].map((cores) => defaultParseThreads(cores))).toEqual([1, 1, 2, 2, 2]);
});
