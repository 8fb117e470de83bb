/**
 * The TypeScript SDK (clients/typescript) against the running service: the whole stack (PGlite,
 * Temporal dev server, worker, Chromium) with the synthetic replay pages as the marketplace, and a
 * local receiver for postbacks. `npm run -w clients/typescript test` runs this file and the drift test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { PLANS } from '../../core/pricing.js';
import { createRetailClient, RetailDataError, verifyWebhook, type RetailClient } from '../../clients/typescript/src/index.js';
import { waitFor } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const PRODUCTS = [
  { asin: 'B0000000P1', marketplace: 'de' }, { asin: 'B0000000N1', marketplace: 'com' }, { asin: 'B0000000U1', marketplace: 'uk' },
  { asin: 'B0000000C1', marketplace: 'br' }, { asin: 'B0000000F1', marketplace: 'com' }, { asin: 'B0000000O1', marketplace: 'com' },
  { asin: 'B0000000D1', marketplace: 'com' }, { asin: 'B0000000J1', marketplace: 'jp' }, { asin: 'B0000000M1', marketplace: 'com' },
  { asin: 'B0000000T1', marketplace: 'com' },
];

describe('the TypeScript SDK against the running service', () => {
  let running: TestStack;
  let receiver: WebhookReceiver;
  let sdk: RetailClient;
  let accountId: number;
  const rates = PLANS.standard!.rates;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    running = await startTestStack({ env: { REUSE_WINDOW: '0s', WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_PORTS: `80,443,${receiver.port}` } });
    const created = await createAccount(running.stack.db, { login: 'sdk', email: 'sdk@example.com', balance: 10 });
    accountId = created.id;
    sdk = createRetailClient({ baseUrl: running.stack.api.url, apiKey: created.api_key });
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    await receiver?.close();
  });

  it('postAndWait posts 20 tasks and resolves each as it finishes, charged once', { timeout: 240_000 }, async () => {
    const tasks = [...PRODUCTS, ...PRODUCTS].map((p) => ({ ...p, tag: 'sdk-20' }));
    const progress: string[] = [];
    const key = 'sdk-twenty';
    const done = await sdk.postAndWait(tasks, { idempotencyKey: key, onProgress: (task, n, total) => progress.push(`${n}/${total} ${task.id}`) });
    expect(done).toHaveLength(20);
    expect(progress).toHaveLength(20);
    expect(progress.at(-1)).toMatch(/^20\/20 /);
    for (const [i, task] of done.entries()) {
      expect(task.data).toMatchObject({ asin: tasks[i]!.asin, tag: 'sdk-20' });
      expect([20000, 40402, 50301]).toContain(task.status_code);
      if (task.status_code === 20000) expect(task.result![0]).toMatchObject({ asin: tasks[i]!.asin });
    }
    // Every task is final, with the code the service stored for it (some synthetic pages are a captcha or missing).
    const rows = await running.stack.db.prisma.task.findMany({ where: { id: { in: done.map((t) => t.id) } }, select: { id: true, state: true, statusCode: true } });
    for (const task of done) expect(rows.find((r) => r.id === task.id)).toMatchObject({ state: expect.stringMatching(/^(completed|failed)$/), statusCode: task.status_code });
    expect(done.filter((t) => t.status_code === 20000).length).toBeGreaterThan(0);
    // The same Idempotency-Key again: the same tasks, nothing charged twice.
    const before = await accountMoney(running.stack.db.prisma, { id: accountId });
    const again = await sdk.postAndWait(tasks, { idempotencyKey: key, pollMs: { first: 10, max: 50 } });
    expect(again.map((t) => [t.id, t.status_code])).toEqual(done.map((t) => [t.id, t.status_code]));
    expect((await accountMoney(running.stack.db.prisma, { id: accountId })).balance).toBe(before.balance);
  });

  it('live answers the Product; history iterates every stored observation, page by page', { timeout: 120_000 }, async () => {
    const product = await sdk.live({ asin: 'B0000000P1', marketplace: 'de', max_age_minutes: 0 });
    expect(product).toMatchObject({ asin: 'B0000000P1', marketplace: 'de' });
    const before = await accountMoney(running.stack.db.prisma, { id: accountId });
    const seen = [];
    for await (const observation of sdk.history({ asin: 'B0000000P1', marketplace: 'de', limit: 1 })) seen.push(observation);
    // Two reads by postAndWait, one by live: three observations, newest first, one page (call) each plus the empty last page.
    expect(seen.length).toBe(3);
    expect(seen.every((o) => o.asin === 'B0000000P1')).toBe(true);
    const after = await accountMoney(running.stack.db.prisma, { id: accountId });
    expect(before.balance - after.balance).toBeCloseTo(4 * rates.history, 9);
  });

  it('a postback verifies with verifyWebhook; a tampered one is refused', { timeout: 120_000 }, async () => {
    const [task] = await sdk.postAndWait([{ asin: 'B0000000N1', marketplace: 'com', postback_url: `${receiver.url}/sdk-postback` }]);
    const delivery = await waitFor(async () => receiver.at('/sdk-postback')[0], 60_000);
    expect(JSON.parse(delivery.body).tasks[0].id).toBe(task!.id);
    const { data } = await sdk.api.GET('/v1/appendix/user_data');
    const secret = (data as any).tasks[0].result[0].webhook_secret as string;
    const headers = delivery.headers as Record<string, string>;
    expect(verifyWebhook(delivery.body, headers, secret)).toBe(true);
    expect(verifyWebhook(Buffer.from(delivery.body), new Headers(headers), secret)).toBe(true);
    expect(verifyWebhook(delivery.body.replace('B0000000N1', 'B0000000N2'), headers, secret)).toBe(false);
    expect(verifyWebhook(delivery.body, headers, `${secret}x`)).toBe(false);
    expect(verifyWebhook(delivery.body, {}, secret)).toBe(false);
  });

  it('a 402 and a 40501 surface as RetailDataError with their codes', { timeout: 60_000 }, async () => {
    const poor = await createAccount(running.stack.db, { login: 'sdk-poor', email: 'sdk-poor@example.com', balance: 0 });
    const broke = createRetailClient({ baseUrl: running.stack.api.url, apiKey: poor.api_key });
    const payment = await broke.postAndWait([{ asin: 'B0000000P1', marketplace: 'de' }]).catch((e: unknown) => e);
    expect(payment).toBeInstanceOf(RetailDataError);
    expect(payment).toMatchObject({ status_code: 40200, http_status: 402 });
    const invalid = await sdk.live({ asin: 'B0000000P1', marketplace: 'de', max_age_minutes: -1 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RetailDataError);
    expect(invalid).toMatchObject({ status_code: 40501, http_status: 400, status_message: expect.stringContaining('max_age_minutes') });
  });
});
