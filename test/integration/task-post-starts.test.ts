/**
 * When task_post answers while its workflow starts are under way (charged-tasks.ts
 * `ChargedOutcome.settle`): after the first start ends, unless that one failed, in which case after
 * every start, so that a refusal is answered in the request. Against buildApp on PGlite; Temporal
 * is replaced at its boundary by a launcher whose starts the test ends one by one: these tests are
 * about what the API answers and charges, not about the reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { TaskLauncher } from '../../api/services/task-launcher.js';
import { PLANS } from '../../core/pricing.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const price = PLANS.standard!.rates.task_post;

/** A start the test ends: `ok()` or `refuse()`. */
interface HeldStart { taskId: string; ok(): void; refuse(): void }

let app: TestApp;
/** Starts not ended yet, in the order they were asked for. */
const held: HeldStart[] = [];
/** What the next starts do without waiting for the test: end at once, fail at once, or be held. */
let mode: 'hold' | 'refuse-first' = 'hold';
/** In `refuse-first` mode, the first start was refused. */
let refusedOnce = false;

beforeAll(async () => {
  const launcher: TaskLauncher = {
    start: (input) => new Promise<void>((resolve, reject) => {
      if (mode === 'refuse-first' && held.length === 0 && !refusedOnce) {
        refusedOnce = true;
        reject(new Error('namespace not found'));
        return;
      }
      held.push({ taskId: input.taskId, ok: resolve, refuse: () => reject(new Error('namespace not found')) });
    }),
    startWebhooks: async () => undefined,
    waitFor: async () => false,
    cancel: async () => undefined,
  };
  app = await startTestApp({ launcher, monitors: false });
});

afterAll(async () => {
  for (const start of held.splice(0)) start.ok();
  await app?.close();
});

async function customer(login: string): Promise<ApiClient> {
  const { api_key: key } = await createAccount(app.db, { login, email: `${login}@example.com`, balance: 1 });
  return apiClient(app.url, { login, key });
}

const body = (n: number) => Array.from({ length: n }, (_, i) => ({ asin: `B0STARTS${String(i).padStart(2, '0')}`, marketplace: 'com' }));

describe('task_post answers once its first workflow start ends', () => {
  it('answers 20100 for every task once one start succeeded; a start that fails later fails its task with 50301 and refunds it', async () => {
    mode = 'hold';
    const api = await customer('starts-ok');
    const answer = api.post('/v1/retail/product/task_post', body(5));
    await waitFor(async () => held.length === 5, 10_000, 10);
    held.shift()!.ok();
    const res = await answer;
    // The other four starts are still under way: the answer did not wait for them.
    expect(held).toHaveLength(4);
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: any) => [t.status_code, t.cost])).toEqual(Array(5).fill([20100, price]));
    expect(res.body.cost).toBeCloseTo(5 * price, 9);

    const late = held.shift()!;
    late.refuse();
    for (const start of held.splice(0)) start.ok();
    const failed = await waitFor(async () => {
      const got = await api.get(`/v1/retail/product/task_get/${late.taskId}`);
      return got.body.tasks[0].status_code === 50301 && got.body.tasks[0];
    }, 10_000, 50);
    expect(failed.cost).toBe(0);
    const balance = await app.prisma.account.findUniqueOrThrow({ where: { login: 'starts-ok' } });
    expect(Number(balance.balance)).toBeCloseTo(1 - 4 * price, 9);
  });

  it('when the first start to end was refused, waits for every start: each refusal answers 50301 at cost 0 in the request', async () => {
    mode = 'refuse-first';
    const api = await customer('starts-refused');
    let answered = false;
    const answer = api.post('/v1/retail/product/task_post', body(3)).finally(() => (answered = true));
    await waitFor(async () => held.length === 2, 10_000, 10);
    // The refused start has ended (its task failed and refunded) before the two held ones.
    const account = await app.prisma.account.findUniqueOrThrow({ where: { login: 'starts-refused' } });
    await waitFor(async () => (await app.prisma.task.count({ where: { accountId: account.id, statusCode: 50301 } })) === 1, 10_000, 10);
    expect(answered).toBe(false);
    // The request is still waiting for these two: one is refused, one succeeds.
    held.shift()!.refuse();
    held.shift()!.ok();
    const res = await answer;
    expect(res.status).toBe(200);
    const codes = res.body.tasks.map((t: any) => [t.status_code, t.cost]);
    expect(codes.filter(([code]: number[]) => code === 50301)).toEqual([[50301, 0], [50301, 0]]);
    expect(codes.filter(([code]: number[]) => code === 20100)).toEqual([[20100, price]]);
    const balance = await app.prisma.account.findUniqueOrThrow({ where: { login: 'starts-refused' } });
    expect(Number(balance.balance)).toBeCloseTo(1 - price, 9);
  });
});
