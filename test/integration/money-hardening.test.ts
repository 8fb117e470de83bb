/**
 * No stranded charge (api-spec.md charging rules; operations-contract.md `Idempotency-Key`): the
 * API on PGlite and on the real PostgreSQL, with the real Temporal dev server (no worker: a started
 * workflow simply waits in its queue, which is what "the task has a workflow" means here).
 * - an element the database could not store (a NUL character) is refused alone; an error the
 *   database raises while charging a body fails the whole body (one statement), charging nothing;
 *   every charged element has its workflow or was refunded;
 * - a workflow start Temporal refuses (a namespace it does not have) answers 50301 at cost 0;
 * - the task reconciler starts the workflow of a charged task left without one (the state a process
 *   dying between charge and start leaves), refunds tasks whose workflow closed and orphaned live
 *   tasks, and leaves young tasks to their request;
 * - Idempotency-Key on task_post and live: replay byte for byte without charge or usage, 409 for
 *   another body, 400 / 40501 for a malformed key, one charge for concurrent duplicates.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, topUp } from '../../api/admin/accounts.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { newTaskId } from '../../core/ids.js';
import { createLogger } from '../../core/logger.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { LIVE_ORPHAN_MARGIN_MS, RECONCILE_GRACE_MS, reconcileTasks } from '../../core/task-reconciler.js';
import { createChargedTask } from '../../core/tasks.js';
import { temporalTaskLauncher } from '../../core/temporal/task-launcher.js';
import { flushUsage, utcDay } from '../../core/usage.js';
import { waitFor } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { useTemporalDevServer } from '../support/temporal.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { version1Fields } from '../../core/product.js';

const rates = PLANS.standard!.rates;
const postgresPrerequisite = await postgres();
const logger = createLogger('silent');

const temporal = useTemporalDevServer();

/** A raw HTTP call: status, headers and the body exactly as received. */
async function call(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as any };
}

/** A product observed just now (a live cache hit). */
function observation(asin: string) {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date().toISOString(), status: 'ok' as const,
    title: 'T', byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  };
}

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `money hardening on ${database}`, () => {
    let app: TestApp;
    let db: Db;
    let prisma: PrismaClient;
    let config: Config;
    let api: { url: string };
    let refusing: { url: string };
    let seq = 0;

    beforeAll(async () => {
      app = await startTestApp({ database, temporal: { address: temporal.server.address }, logger, env: { LIVE_BUDGET: '1s', REUSE_WINDOW: '0s' } });
      ({ db, prisma, config } = app);
      api = app;
      // The same service pointed at a namespace the Temporal server does not have: every start is refused.
      refusing = await app.another({ env: { TEMPORAL_NAMESPACE: 'no-such-namespace' } });
    });

    afterAll(async () => {
      await app?.close();
    });

    async function account(balance: number) {
      const login = `money${++seq}`;
      const created = await createAccount(db, { login, email: `${login}@example.com`, balance });
      return { id: created.id, login, key: created.api_key };
    }

    /** Every task still charged has a workflow (or finished), and the ledger sums to the balance. */
    async function expectNoStrandedCharge(accountId: number) {
      for (const task of await prisma.task.findMany({ where: { accountId } })) {
        if (Number(task.cost) === 0) {
          expect(task.state).toBe('failed');
          continue;
        }
        if (task.state === 'completed') continue;
        // task_post answers once the first start of its body ends, so a later start may still be
        // under way: the workflow must appear, not necessarily before the answer.
        const described = await waitFor(() => temporal.client.workflow.getHandle(task.id).describe().catch((error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        }), 10_000, 100);
        expect(described.type).toBe('productTask');
      }
      const money = await accountMoney(prisma, { id: accountId });
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
      return money;
    }

    const element = (i: number, extra: Record<string, unknown> = {}) => ({ asin: 'B07CL39Z8Q', marketplace: 'com', tag: `t${i}`, ...extra });

    it('a NUL character in the tag of element 3 of 5: no 5xx, the other four are charged and have their workflow', async () => {
      const { id, key } = await account(1);
      const body = [element(1), element(2), element(3, { tag: 'bad\u0000tag' }), element(4), element(5)];
      const res = await call(`${api.url}/v1/retail/product/task_post`, key, body);
      expect(res.status).toBe(200);
      const codes = res.body.tasks.map((t: any) => t.status_code);
      expect(codes.filter((c: number) => c === 20100)).toHaveLength(4);
      // Refused at validation (40501) or by the database (50000): either way the element alone, never charged.
      expect([40501, 50000]).toContain(codes[2]);
      expect(res.body.tasks[2].cost).toBe(0);
      expect(res.body.cost).toBeCloseTo(4 * rates.task_post, 9);
      const money = await expectNoStrandedCharge(id);
      expect(money.balance).toBeCloseTo(1 - 4 * rates.task_post, 9);
      expect(await prisma.task.count({ where: { accountId: id } })).toBe(4);
    });

    it('an error the database raises while charging a body (on element 3 of 5) fails every element with 50000: nothing charged or stored, no workflow; the body without it is charged', async () => {
      // A real database failure inside the charge statement: a trigger that refuses one tag.
      await prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_one_tag() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.tag = 'refused-by-the-database' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
      await prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_one_tag BEFORE INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_one_tag()`);
      try {
        const { id, key } = await account(1);
        const body = [element(1), element(2), element(3, { tag: 'refused-by-the-database' }), element(4), element(5, { priority: 2 })];
        // One statement charges the whole body, so it fails as a whole: no element succeeded, and the
        // request answers 500 / 50000, which the client can retry without paying twice.
        const res = await call(`${api.url}/v1/retail/product/task_post`, key, body);
        expect(res.status).toBe(500);
        expect(res.body).toMatchObject({ status_code: 50000, cost: 0 });
        const untouched = await expectNoStrandedCharge(id);
        expect(untouched.balance).toBeCloseTo(1, 9);
        expect(untouched.entries.map((e) => e.kind)).toEqual(['topup']);
        expect(await prisma.task.count({ where: { accountId: id } })).toBe(0);
        // An invalid element beside them answers its own code, and changes nothing else.
        const mixed = await call(`${api.url}/v1/retail/product/task_post`, key, [{ asin: 'nope', marketplace: 'com' }, ...body]);
        expect(mixed.status).toBe(500);
        expect(mixed.body.status_code).toBe(50000);
        expect(await prisma.task.count({ where: { accountId: id } })).toBe(0);

        const retried = await call(`${api.url}/v1/retail/product/task_post`, key, body.filter((_, i) => i !== 2));
        expect(retried.status).toBe(200);
        expect(retried.body.tasks.map((t: any) => t.status_code)).toEqual([20100, 20100, 20100, 20100]);
        const money = await expectNoStrandedCharge(id);
        expect(money.balance).toBeCloseTo(1 - 3 * rates.task_post - rates.task_post_high, 9);
      } finally {
        await prisma.$executeRawUnsafe('DROP TRIGGER refuse_one_tag ON tasks');
      }
    });

    it('a workflow start Temporal refuses: the element answers 50301 at cost 0 and the balance is unchanged', async () => {
      const { id, key } = await account(1);
      const res = await call(`${refusing.url}/v1/retail/product/task_post`, key, [element(1), element(2)]);
      expect(res.status).toBe(200);
      for (const task of res.body.tasks) expect(task).toMatchObject({ status_code: 50301, cost: 0 });
      expect(res.body.cost).toBe(0);
      const money = await expectNoStrandedCharge(id);
      expect(money.balance).toBeCloseTo(1, 9);
      expect(money.entries.map((e) => e.kind).sort()).toEqual(['charge', 'charge', 'refund', 'refund', 'topup']);
      const rows = await prisma.task.findMany({ where: { accountId: id } });
      expect(rows.map((r) => [r.state, r.statusCode])).toEqual([['failed', 50301], ['failed', 50301]]);
    });

    it('the reconciler starts charged tasks left without a workflow, refunds closed-workflow and orphaned live tasks, and leaves young tasks alone', async () => {
      const { id } = await account(1);
      const workflows = temporalTaskLauncher(temporal.client, config);
      // The state a process dying between charge and start leaves: the API's own charge statement, no start.
      const charge = async (endpoint: 'task_post' | 'live', ageMs: number) => {
        const taskId = newTaskId();
        const cost = endpoint === 'live' ? rates.live : rates.task_post;
        const created = await createChargedTask(db, {
          id: taskId, accountId: id, endpoint, asin: 'B07CL39Z8Q', marketplace: 'com', data: { asin: 'B07CL39Z8Q', marketplace: 'com' },
          cost, expiresAt: new Date(Date.now() + 86_400_000), note: endpoint,
        });
        expect(created?.state).toBe('queued');
        await prisma.$executeRawUnsafe(`UPDATE tasks SET created_at = now() - $1::int * interval '1 millisecond' WHERE id = $2::uuid`, ageMs, taskId);
        return taskId;
      };
      const leftover = await charge('task_post', RECONCILE_GRACE_MS + 60_000);
      const young = await charge('task_post', 0);
      const closed = await charge('task_post', RECONCILE_GRACE_MS + 60_000);
      await workflows.start({ taskId: closed, asin: 'B07CL39Z8Q', marketplace: 'com' });
      await temporal.client.workflow.getHandle(closed).terminate('operator terminated it');
      const running = await charge('task_post', RECONCILE_GRACE_MS + 60_000);
      await workflows.start({ taskId: running, asin: 'B07CL39Z8Q', marketplace: 'com' });
      const orphanedLive = await charge('live', config.LIVE_BUDGET + LIVE_ORPHAN_MARGIN_MS + 60_000);

      const report = await reconcileTasks({ db, workflows, logger, liveBudgetMs: config.LIVE_BUDGET });
      expect(report).toMatchObject({ started: 1, refunded: 2, running: 1, errors: 0 });
      expect((await temporal.client.workflow.getHandle(leftover).describe()).status.name).toBe('RUNNING');
      await expect(temporal.client.workflow.getHandle(young).describe()).rejects.toThrow();
      const state = async (taskId: string) => {
        const t = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
        return { state: t.state, code: t.statusCode, cost: Number(t.cost) };
      };
      expect(await state(leftover)).toEqual({ state: 'queued', code: 20100, cost: rates.task_post });
      expect(await state(young)).toEqual({ state: 'queued', code: 20100, cost: rates.task_post });
      expect(await state(closed)).toEqual({ state: 'failed', code: 50301, cost: 0 });
      expect(await state(orphanedLive)).toEqual({ state: 'failed', code: 50301, cost: 0 });
      const money = await accountMoney(prisma, { id });
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
      expect(money.balance).toBeCloseTo(1 - 3 * rates.task_post, 9);

      // The next run leaves the tasks whose workflow it found running or started (looked at again later).
      const again = await reconcileTasks({ db, workflows, logger, liveBudgetMs: config.LIVE_BUDGET });
      expect(again).toMatchObject({ checked: 0, started: 0, refunded: 0 });
    });

    it('Idempotency-Key on task_post: the same request again gets the first response byte for byte, uncharged and unmetered; another body → 409', async () => {
      const { id, key } = await account(1);
      const url = `${api.url}/v1/retail/product/task_post`;
      const body = [element(1), element(2)];
      const first = await call(url, key, body, { 'Idempotency-Key': 'order-2024-0001' });
      expect(first.status).toBe(200);
      expect(first.body.tasks.map((t: any) => t.status_code)).toEqual([20100, 20100]);
      const balance = (await accountMoney(prisma, { id })).balance;
      for (let i = 0; i < 2; i++) {
        const replay = await call(url, key, JSON.parse(JSON.stringify(body)), { 'Idempotency-Key': 'order-2024-0001' });
        expect(replay.status).toBe(200);
        expect(replay.text).toBe(first.text);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
      }
      expect((await accountMoney(prisma, { id })).balance).toBe(balance);
      expect(await prisma.task.count({ where: { accountId: id } })).toBe(2);

      const other = await call(url, key, [element(9)], { 'Idempotency-Key': 'order-2024-0001' });
      expect(other.status).toBe(409);
      expect(other.body.status_code).toBe(40000);
      expect(other.body.status_message).toContain('Idempotency-Key');
      const otherEndpoint = await call(`${api.url}/v1/retail/product/live`, key, [{ asin: 'B07CL39Z8Q', marketplace: 'com' }], { 'Idempotency-Key': 'order-2024-0001' });
      expect(otherEndpoint.status).toBe(409);
      for (const bad of ['', 'x'.repeat(256), 'two words']) {
        const refused = await call(url, key, body, { 'Idempotency-Key': bad });
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ status_code: 40501, status_message: 'Invalid field: `Idempotency-Key`.' });
      }
      expect((await accountMoney(prisma, { id })).balance).toBe(balance);

      // Usage: three requests, the tasks and cost of the first only.
      await flushUsage(db);
      const usage = await prisma.usageCounter.findUniqueOrThrow({ where: { accountId_day_endpoint: { accountId: id, day: new Date(utcDay()), endpoint: 'task_post' } } });
      expect(usage.tasks).toBe(2);
      expect(Number(usage.cost)).toBeCloseTo(2 * rates.task_post, 9);

      // A request refused as a whole frees its key: after a top-up the same key runs.
      const poor = await account(0);
      const refusedForBalance = await call(url, poor.key, [element(1)], { 'Idempotency-Key': 'after-topup' });
      expect(refusedForBalance.status).toBe(402);
      await topUp(db, { login: poor.login, amount: 1 });
      const paid = await call(url, poor.key, [element(1)], { 'Idempotency-Key': 'after-topup' });
      expect(paid.status).toBe(200);
      expect(paid.body.tasks[0].status_code).toBe(20100);
    });

    it('Idempotency-Key on task_post: concurrent duplicates are charged once', async () => {
      const { id, key } = await account(1);
      const body = [element(1), element(2), element(3)];
      const responses = await Promise.all(Array.from({ length: 6 }, () => call(`${api.url}/v1/retail/product/task_post`, key, body, { 'Idempotency-Key': 'concurrent-1' })));
      const answered = responses.filter((r) => r.status === 200);
      const busy = responses.filter((r) => r.status === 409);
      expect(answered.length + busy.length).toBe(6);
      expect(answered.length).toBeGreaterThanOrEqual(1);
      expect(new Set(answered.map((r) => r.text)).size).toBe(1);
      for (const r of busy) expect(r.headers.get('retry-after')).toBe('1');
      expect(await prisma.task.count({ where: { accountId: id } })).toBe(3);
      const money = await expectNoStrandedCharge(id);
      expect(money.balance).toBeCloseTo(1 - 3 * rates.task_post, 9);
      // Once answered, a duplicate gets the stored answer.
      const later = await call(`${api.url}/v1/retail/product/task_post`, key, body, { 'Idempotency-Key': 'concurrent-1' });
      expect(later.text).toBe(answered[0]!.text);
    });

    it('Idempotency-Key on live: replay byte for byte without a second charge, another body → 409, concurrent duplicates charged once', async () => {
      const { id, key } = await account(1);
      await storeObservation(db, observation('B0LIVE0001'));
      const url = `${api.url}/v1/retail/product/live`;
      const body = [{ asin: 'B0LIVE0001', marketplace: 'com', max_age_minutes: 60 }];
      const first = await call(url, key, body, { 'Idempotency-Key': 'live-1' });
      expect(first.status).toBe(200);
      expect(first.body.tasks[0]).toMatchObject({ status_code: 20000, cost: rates.live });
      const replay = await call(url, key, body, { 'Idempotency-Key': 'live-1' });
      expect(replay.text).toBe(first.text);
      expect((await accountMoney(prisma, { id })).balance).toBeCloseTo(1 - rates.live, 9);
      const other = await call(url, key, [{ asin: 'B0LIVE0001', marketplace: 'com', max_age_minutes: 30 }], { 'Idempotency-Key': 'live-1' });
      expect(other.status).toBe(409);
      expect(other.body.status_code).toBe(40000);

      const concurrent = await Promise.all(Array.from({ length: 6 }, () => call(url, key, body, { 'Idempotency-Key': 'live-2' })));
      const answered = concurrent.filter((r) => r.status === 200);
      expect(answered.length + concurrent.filter((r) => r.status === 409).length).toBe(6);
      expect(new Set(answered.map((r) => r.text)).size).toBe(1);
      expect(await prisma.task.count({ where: { accountId: id } })).toBe(2);
      const money = await accountMoney(prisma, { id });
      expect(money.balance).toBeCloseTo(1 - 2 * rates.live, 9);
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    });
  });
}
