/**
 * Reads through outbound proxies, with real parts on loopback: forward proxies built with Apify's
 * proxy-chain in front of the replay server (saved pages of ../shared), the whole stack (PGlite,
 * Temporal dev server, worker, API), and Chromium — launched by the worker, or started here with
 * --remote-debugging-port and given as BROWSER_WS_ENDPOINTS.
 *
 * Marketplace `com` reads through three proxies: a plain one, one that requires credentials, and
 * one that answers every request with the saved captcha page. 100 tasks end with products (a read
 * blocked on the captcha proxy goes on with another session on another proxy), the captcha proxy
 * ends quarantined having carried few reads, and the status counts each task's read once.
 * Marketplace `de` reads through two proxies that both answer captchas (SOURCE_PROXIES_DE): its
 * live and queued tasks end 50301 within the budget, refunded, and once both proxies are
 * quarantined a read fails at once. No credential appears in the log, /metrics or any workflow
 * history.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import puppeteer, { type Browser } from 'puppeteer-core';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { marketplaceByDomainSuffix } from '../../core/marketplaces.js';
import { loadManifest } from '../../replay/manifest.js';
import { startForwardProxy, type ForwardProxy } from '../../scripts/forward-proxies.js';
import { resolveChromePath } from '../../worker/browser/chrome-path.js';
import { LOCAL_CHROMIUM_ARGS } from '../../worker/browser/browser-slot.js';
import { MIN_READS_TO_JUDGE } from '../../worker/identity/proxy-health.js';
import { sharedPagesDir } from '../support/env.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const TASKS = 100;
const PAGE_SLOTS = 4;
const LIVE_BUDGET_MS = 20_000;

/** The saved robot check of the `com` marketplace (MANIFEST.tsv kind `captcha`). */
function savedCaptchaPage(): Buffer {
  const rows = fs.readFileSync(path.join(sharedPagesDir, 'MANIFEST.tsv'), 'utf8').split('\n').map((l) => l.split('\t'));
  const file = rows.find((r) => r[1] === 'com' && r[3] === 'captcha')?.[0];
  if (!file) throw new Error('no com captcha page in the saved pages');
  return fs.readFileSync(path.join(sharedPagesDir, file));
}

/** ASINs of saved pages of `suffix` that answer with a product (product, no_bsr). */
async function productAsins(suffix: string): Promise<string[]> {
  const domain = marketplaceByDomainSuffix(suffix)!.domain;
  const { pages } = await loadManifest(sharedPagesDir);
  return [...pages.values()].filter((p) => p.domain === domain && (p.kind === 'product' || p.kind === 'no_bsr')).map((p) => p.asin);
}

/** Every value of a Prometheus sample `name{labels}` whose labels include `labels`, summed. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    if (Object.entries(labels).every(([k, v]) => match[1]!.includes(`${k}="${v}"`))) sum += Number(match[2]);
  }
  return sum;
}

/** A workflow history as text, payloads decoded (they are JSON bytes): what Temporal stores. */
async function historyText(running: TestStack, workflowId: string): Promise<{ text: string; readResults: unknown[] }> {
  const history = await running.client.workflow.getHandle(workflowId).fetchHistory();
  const readResults = (history.events ?? []).flatMap((e) => {
    const payload = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    return payload ? [defaultPayloadConverter.fromPayload(payload)] : [];
  });
  const text = JSON.stringify(history, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value));
  return { text, readResults };
}

describeNeeding([savedPages], 'page reads through outbound proxies', () => {
  describe.each(['local', 'remote'] as const)('with a %s Chromium', (chromium) => {
    const secret = { username: `rda-user-${randomBytes(4).toString('hex')}`, password: `pw-${randomBytes(8).toString('hex')}` };
    const secrets = [secret.username, secret.password, Buffer.from(`${secret.username}:${secret.password}`).toString('base64')];
    let external: Browser | undefined;
    let profile: string | undefined;
    let proxies: { plain: ForwardProxy; auth: ForwardProxy; captcha: ForwardProxy; de1: ForwardProxy; de2: ForwardProxy };
    let running: TestStack;
    let logs: CapturedLogs;
    let api: ApiClient;
    const taskIds: string[] = [];
    const metrics = async () => (await fetch(`${running.stack.api.metricsUrl}/metrics`)).text();

    beforeAll(async () => {
      const captchaPage = savedCaptchaPage();
      proxies = {
        plain: await startForwardProxy(),
        auth: await startForwardProxy({ credentials: secret }),
        captcha: await startForwardProxy({ blockPage: captchaPage }),
        de1: await startForwardProxy({ blockPage: captchaPage }),
        de2: await startForwardProxy({ blockPage: captchaPage, credentials: secret }),
      };
      if (chromium === 'remote') {
        profile = fs.mkdtempSync(path.join(os.tmpdir(), 'proxies-test-chromium-'));
        external = await puppeteer.launch({
          executablePath: resolveChromePath(process.env.CHROME_PATH),
          headless: true,
          args: [...LOCAL_CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0'],
        });
      }
      logs = captureLogs('debug');
      running = await startTestStack({
        pages: sharedPagesDir,
        logger: logs.logger,
        env: {
          METRICS_LISTEN: '127.0.0.1:0', REUSE_WINDOW: '0s', LIVE_BUDGET: `${LIVE_BUDGET_MS}ms`, BROWSER_MAX_PAGES: String(PAGE_SLOTS),
          SOURCE_PROXIES: [proxies.plain.url, proxies.auth.url, proxies.captcha.url].join(','),
          SOURCE_PROXIES_DE: `${proxies.de1.url}, ${proxies.de2.url}`,
          ...(external && { BROWSER_WS_ENDPOINTS: external.wsEndpoint() }),
        },
      });
      const { api_key } = await createAccount(running.stack.db, { login: 'reader', email: 'reader@example.com', balance: 5, plan: 'standard' });
      api = apiClient(running.stack.api.url, { key: api_key });
    });

    afterAll(async () => {
      await running?.stop();
      await external?.close();
      if (profile) fs.rmSync(profile, { recursive: true, force: true });
      await Promise.all(Object.values(proxies ?? {}).map((p) => p.close()));
    });

    it(`${TASKS} tasks on com end with products although one proxy answers every request with a captcha`, { timeout: 300_000 }, async () => {
      const asins = await productAsins('com');
      expect(asins.length).toBeGreaterThan(5);
      const tasks = Array.from({ length: TASKS }, (_, i) => ({ asin: asins[i % asins.length]!, marketplace: 'com', tag: `t${i}` }));
      const posted = await api.post('/v1/retail/product/task_post', tasks);
      expect(posted.body.tasks_error).toBe(0);
      taskIds.push(...(posted.body.tasks as { id: string }[]).map((t) => t.id));
      const prisma = running.stack.db.prisma;
      await waitFor(async () => (await prisma.task.count({ where: { id: { in: taskIds }, state: { in: ['completed', 'failed'] } } })) === TASKS, 240_000, 500);
      const codes = await prisma.task.groupBy({ by: ['statusCode'], where: { id: { in: taskIds } }, _count: { _all: true } });
      const count = (code: number) => codes.find((c) => c.statusCode === code)?._count._all ?? 0;
      expect(count(20000)).toBeGreaterThanOrEqual(99);
      expect(count(50301)).toBe(0);

      // The captcha proxy was hit, then quarantined for com: it carried few reads, the others the rest.
      const text = await metrics();
      expect(sample(text, 'retail_source_proxy_quarantined', { proxy: proxies.captcha.label, marketplace: 'com' })).toBe(1);
      expect(sample(text, 'retail_source_proxy_quarantined', { proxy: proxies.plain.label, marketplace: 'com' })).toBe(0);
      const captchaReads = proxies.captcha.blocked.length;
      expect(captchaReads).toBeGreaterThanOrEqual(MIN_READS_TO_JUDGE);
      // At most the reads that judged it, plus those already under way when it was taken out.
      expect(captchaReads).toBeLessThanOrEqual(MIN_READS_TO_JUDGE + PAGE_SLOTS - 1);
      expect(proxies.plain.forwarded.length + proxies.auth.forwarded.length).toBeGreaterThanOrEqual(TASKS);
      // The proxy asking for credentials got them (page.authenticate) and served products.
      expect(proxies.auth.forwarded.length).toBeGreaterThan(20);
      expect(sample(text, 'retail_source_proxy_reads_total', { proxy: proxies.auth.label, marketplace: 'com', outcome: 'product' })).toBeGreaterThan(20);
      expect(sample(text, 'retail_source_proxy_reads_total', { proxy: proxies.captcha.label, outcome: 'blocked' })).toBe(captchaReads);
      expect(sample(text, 'retail_source_proxy_read_duration_seconds_count', { proxy: proxies.plain.label })).toBe(proxies.plain.forwarded.length);
      const quarantinedLines = logs.lines().filter((l) => l.msg === 'proxy quarantined');
      expect(quarantinedLines).toEqual([expect.objectContaining({ proxy: proxies.captcha.label, marketplace: 'com', level: 40 })]);
    });

    it('every attempt is in the worker log and the read\'s result; the status counts each task\'s read once, as a success', async () => {
      const attemptLines = logs.lines().filter((l) => l.msg === 'source read attempt' && taskIds.includes(l.taskId));
      expect(attemptLines.length).toBe(TASKS + proxies.captcha.blocked.length);
      for (const line of attemptLines) {
        expect(line).toMatchObject({ session: expect.stringMatching(/^session_/), ms: expect.any(Number), outcome: expect.stringMatching(/^(product|blocked)$/) });
        expect([proxies.plain.label, proxies.auth.label, proxies.captcha.label]).toContain(line.proxy);
      }
      const retried = attemptLines.find((l) => l.outcome === 'blocked')!;
      expect(retried).toMatchObject({ proxy: proxies.captcha.label, reason: expect.stringMatching(/^robot_check/) });
      const { readResults } = await historyText(running, retried.taskId as string);
      const attempts = (readResults[0] as { attempts: { proxy: string; outcome: string; session: string }[] }).attempts;
      expect(attempts.map((a) => [a.proxy === proxies.captcha.label, a.outcome])).toEqual([[true, 'blocked'], [false, 'product']]);
      expect(attempts[0]!.session).not.toBe(attempts[1]!.session);

      const status = await api.get('/v1/appendix/status');
      const com = (status.body.tasks[0].result as { marketplace: string; success_rate_24h: number; source_reads_24h: number }[]).find((r) => r.marketplace === 'com')!;
      expect(com).toMatchObject({ source_reads_24h: TASKS, success_rate_24h: 1 });
    });

    it('with every proxy of de answering captchas, live and queued tasks end 50301 within the budget, refunded; then reads fail at once', { timeout: 180_000 }, async () => {
      const prisma = running.stack.db.prisma;
      const before = await accountMoney(prisma, { login: 'reader' });
      const [asin] = await productAsins('de');
      const started = performance.now();
      const live = await api.post('/v1/retail/product/live', [{ asin, marketplace: 'de' }]);
      const liveMs = performance.now() - started;
      expect(live.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0, result: null });
      expect(liveMs).toBeLessThan(LIVE_BUDGET_MS);
      const posted = await api.post('/v1/retail/product/task_post', Array.from({ length: 6 }, (_, i) => ({ asin, marketplace: 'de', tag: `de${i}` })));
      const ids = (posted.body.tasks as { id: string }[]).map((t) => t.id);
      await waitFor(async () => (await prisma.task.count({ where: { id: { in: ids }, state: 'failed' } })) === ids.length, 120_000, 250);
      expect(await prisma.task.count({ where: { id: { in: ids }, statusCode: 50301 } })).toBe(ids.length);

      // Both proxies are out for de now: the next read fails at once, without a request to either.
      await waitFor(async () => {
        const text = await metrics();
        return [proxies.de1, proxies.de2].every((p) => sample(text, 'retail_source_proxy_quarantined', { proxy: p.label, marketplace: 'de' }) === 1);
      }, 30_000);
      const requests = proxies.de1.blocked.length + proxies.de2.blocked.length;
      const fast = performance.now();
      const failedFast = await api.post('/v1/retail/product/live', [{ asin, marketplace: 'de' }]);
      expect(failedFast.body.tasks[0]).toMatchObject({ status_code: 50301, cost: 0 });
      expect(performance.now() - fast).toBeLessThan(5_000);
      expect(proxies.de1.blocked.length + proxies.de2.blocked.length).toBe(requests);
      expect(logs.lines().some((l) => l.msg === 'no identity to read with' && l.marketplace === 'de')).toBe(true);

      // Balance exact: every task refunded (a refund entry each), the ledger sums to the balance.
      await waitFor(async () => (await accountMoney(prisma, { login: 'reader' })).balance === before.balance, 30_000);
      const after = await accountMoney(prisma, { login: 'reader' });
      expect(after.entries.filter((e) => e.kind === 'refund' && ids.includes(e.taskId!))).toHaveLength(ids.length);
      expect(after.ledgerSum).toBeCloseTo(after.balance, 10);
    });

    it('no credential appears in the service\'s log, in /metrics or in any workflow history', async () => {
      const histories = await Promise.all(taskIds.map(async (id) => (await historyText(running, id)).text));
      const failedIds = (await running.stack.db.prisma.task.findMany({ where: { marketplace: 'de' }, select: { id: true } })).map((t) => t.id);
      histories.push(...await Promise.all(failedIds.map(async (id) => (await historyText(running, id)).text)));
      const places = { log: logs.text(), metrics: await metrics(), histories: histories.join('\n') };
      expect(places.log).toContain(proxies.auth.label); // hosts may appear
      for (const [where, text] of Object.entries(places)) {
        for (const value of secrets) expect(text.includes(value), `${where} holds a credential`).toBe(false);
      }
    });
  });
});
