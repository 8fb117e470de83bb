/**
 * Priority 2 before priority 1 (api-spec.md "task_post" `priority`): with the worker
 * saturated (one page at a time, every page answered late), priority 2 tasks posted after a
 * backlog of priority 1 tasks finish before most of that backlog. Whole stack: real Temporal dev
 * server, real Chromium, PGlite, the synthetic replay pages as the marketplace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { Stack } from '../../scripts/stack.js';
import type { DelayedReplay } from '../support/delayed-replay.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

/** Product pages of the synthetic replay folder (kinds product / no_bsr: each completes with 20000). */
const PAGES = [
  { asin: 'B0000000P1', marketplace: 'de', path: '/www.amazon.de/dp/B0000000P1' },
  { asin: 'B0000000N1', marketplace: 'com', path: '/www.amazon.com/dp/B0000000N1' },
  { asin: 'B0000000D1', marketplace: 'com', path: '/www.amazon.com/dp/B0000000D1' },
  { asin: 'B0000000T1', marketplace: 'com', path: '/www.amazon.com/dp/B0000000T1' },
];
/** How late the marketplace answers each page, ms: long enough for a backlog to form. */
const PAGE_DELAY_MS = 700;
const BACKLOG = 12;
const URGENT = 3;

describe('priority 2 tasks are read before waiting priority 1 tasks', () => {
  let running: TestStack;
  let stack: Stack;
  let replay: DelayedReplay;
  let api: ApiClient;
  const reads = () => PAGES.reduce((sum, page) => sum + replay.hits(page.path), 0);

  beforeAll(async () => {
    running = await startTestStack({
      delays: Object.fromEntries(PAGES.map((p) => [p.path, PAGE_DELAY_MS])),
      env: { BROWSER_MAX_PAGES: '1', REUSE_WINDOW: '0s' },
    });
    ({ stack, replay } = running);
    const { api_key } = await createAccount(stack.db, { login: 'urgent', email: 'urgent@example.com', balance: 10, plan: 'business' });
    api = apiClient(stack.api.url, { key: api_key });
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('finishes the priority 2 tasks before most of the earlier priority 1 backlog', { timeout: 300_000 }, async () => {
    const backlog = Array.from({ length: BACKLOG }, (_, i) => ({ ...PAGES[i % PAGES.length]!, priority: 1, tag: `normal-${i}` }));
    const posted = await api.post('/v1/retail/product/task_post', backlog.map(({ path: _path, ...task }) => task));
    expect(posted.body.tasks_error).toBe(0);
    const normalIds = (posted.body.tasks as { id: string }[]).map((t) => t.id);

    // The single page slot is busy and the rest of the backlog waits in Temporal's queue.
    await waitFor(async () => reads() >= 1, 60_000, 50);
    const readsBefore = reads();
    const urgent = Array.from({ length: URGENT }, (_, i) => ({ ...PAGES[i % PAGES.length]!, priority: 2, tag: `urgent-${i}` }));
    const urgentPosted = await api.post('/v1/retail/product/task_post', urgent.map(({ path: _path, ...task }) => task));
    expect(urgentPosted.body.tasks_error).toBe(0);
    const urgentIds = new Set((urgentPosted.body.tasks as { id: string }[]).map((t) => t.id));

    const all = [...normalIds, ...urgentIds];
    const finished = await waitFor(async () => {
      const rows = await stack.db.prisma.task.findMany({ where: { id: { in: all } }, select: { id: true, statusCode: true, completedAt: true } });
      return rows.every((r) => r.completedAt) ? rows : null;
    }, 150_000, 250);
    expect(finished.every((r) => r.statusCode === 20000)).toBe(true);

    const order = [...finished].sort((a, b) => a.completedAt!.getTime() - b.completedAt!.getTime()).map((r) => r.id);
    const lastUrgent = Math.max(...[...urgentIds].map((id) => order.indexOf(id)));
    const normalAfterUrgent = order.slice(lastUrgent + 1).filter((id) => !urgentIds.has(id)).length;
    // First in, first out would finish the urgent tasks last (normalAfterUrgent = 0). With priority,
    // only the reads already under way when they arrived (plus one in hand) may finish before them.
    console.info(`priority: ${readsBefore} read(s) under way when the urgent tasks arrived; last urgent task finished ${lastUrgent + 1}th of ${order.length}; ${normalAfterUrgent} priority 1 tasks after it`);
    expect(lastUrgent).toBeLessThanOrEqual(readsBefore + 1 + URGENT);
    expect(normalAfterUrgent).toBeGreaterThanOrEqual(BACKLOG - readsBefore - 2);
    // Every read happened: nothing came from the reuse window.
    expect(reads()).toBe(BACKLOG + URGENT);
  });
});
