/**
 * Every charge settles, and a retry never pays twice, on PGlite and on the real PostgreSQL
 * (Temporal replaced by the recording launcher: a started workflow is one that was asked for):
 * - a bulk upload whose third chunk's statement fails answers what it did (the charged rows, the
 *   rest as 50000, not charged); the same upload again with the same Idempotency-Key replays that
 *   answer and charges nothing;
 * - GraphQL `postTasks` with an Idempotency-Key: the same mutation again answers the same tasks and
 *   charges once; another mutation with the key is refused;
 * - history and stats charge and read in one transaction: a failed read keeps no charge;
 * - GraphQL analytics fields and history exports reserve their charge: kept once answered; a
 *   field whose read fails and whose refund fails too stays open, and the reconciler refunds it;
 * - a monitor workflow run terminated between its reservation and its read: the reconciler
 *   refunds the reservation once the run has ended (a real Temporal dev server), never while the
 *   run is going, and only once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { monitorWorkflowId } from '../../core/domain/subscription-messages.js';
import { createLogger } from '../../core/logger.js';
import { MONITORING_GRACE_MS, reconcileMonitoringRuns } from '../../core/monitoring-reconciler.js';
import { startMonitoringRun } from '../../core/monitoring-runs.js';
import { PLANS } from '../../core/pricing.js';
import { reconcileReadReservations } from '../../core/reservations.js';
import { addSubscriptions } from '../../core/subscriptions.js';
import { temporalTaskLauncher } from '../../core/temporal/task-launcher.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { useTemporalDevServer } from '../support/temporal.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const rates = PLANS.standard!.rates;
const postgresPrerequisite = await postgres();
const logger = createLogger('silent');

const temporal = useTemporalDevServer();

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `charges settle on ${database}`, () => {
    let app: TestApp;
    let seq = 0;

    beforeAll(async () => {
      app = await startTestApp({ database, env: { REUSE_WINDOW: '0s' } });
    }, 120_000);

    afterAll(async () => {
      await app?.close();
    });

    async function account(balance: number) {
      const login = `settle${database}${++seq}`;
      const created = await createAccount(app.db, { login, email: `${login}@example.com`, balance });
      await app.prisma.account.update({ where: { id: created.id }, data: { tasksPerMinute: 100_000 } });
      return { id: created.id, auth: `Bearer ${created.api_key}` };
    }

    async function post(auth: string, path: string, body: string, type: string, headers: Record<string, string> = {}) {
      const res = await fetch(`${app.url}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': type, ...headers }, body });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) as any, headers: res.headers };
    }

    it('a bulk upload whose third chunk fails, retried with the same Idempotency-Key, charges each accepted row once', async () => {
      const who = await account(100);
      // Rows are charged 500 to a statement: row 1,100 sits in the third chunk, whose statement
      // the database refuses (a real failure inside the charge statement, raised by a trigger).
      const rows = Array.from({ length: 1_200 }, (_, i) => `B0SETTLE${String(i % 100).padStart(2, '0')},com,${i + 1 === 1_100 ? 'refused-by-the-database' : `r${i + 1}`}`);
      const csv = ['asin,marketplace,tag', ...rows].join('\n');
      await app.prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_one_tag() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.tag = 'refused-by-the-database' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
      await app.prisma.$executeRawUnsafe('CREATE TRIGGER refuse_one_tag BEFORE INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_one_tag()');
      let first: Awaited<ReturnType<typeof post>>;
      try {
        first = await post(who.auth, '/v1/retail/product/task_post', csv, 'text/csv', { 'Idempotency-Key': 'bulk-third-chunk' });
      } finally {
        await app.prisma.$executeRawUnsafe('DROP TRIGGER refuse_one_tag ON tasks');
      }
      // The first two chunks were charged: the answer says so, with the batch id, and lists the
      // rows the failure left unsettled as 50000 (not charged).
      expect(first.status).toBe(200);
      const summary = first.body.tasks[0].result[0];
      expect(summary).toMatchObject({ rows: 1_200, accepted: 1_000, rejected: 200, rejected_by_code: { 50000: 200 } });
      expect(summary.cost).toBeCloseTo(1_000 * rates.task_post, 6);
      expect(summary.errors[0]).toMatchObject({ row: 1_001, status_code: 50000 });
      const charged = await accountMoney(app.prisma, { id: who.id });
      expect(charged.balance).toBeCloseTo(100 - 1_000 * rates.task_post, 6);
      expect(await app.prisma.task.count({ where: { accountId: who.id } })).toBe(1_000);

      // The same upload with the same key: the stored answer, byte for byte; nothing charged again.
      const retried = await post(who.auth, '/v1/retail/product/task_post', csv, 'text/csv', { 'Idempotency-Key': 'bulk-third-chunk' });
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(retried.text).toBe(first.text);
      const after = await accountMoney(app.prisma, { id: who.id });
      expect(after.balance).toBeCloseTo(charged.balance, 9);
      expect(Math.round(after.ledgerSum * 1e6)).toBe(Math.round(after.balance * 1e6));
      expect(await app.prisma.task.count({ where: { accountId: who.id } })).toBe(1_000);

      // The rows left over, sent again under a new key, are charged once each.
      const rest = ['asin,marketplace,tag', ...rows.slice(1_000).map((r) => r.replace('refused-by-the-database', 'r1100'))].join('\n');
      const remainder = await post(who.auth, '/v1/retail/product/task_post', rest, 'text/csv', { 'Idempotency-Key': 'bulk-rest' });
      expect(remainder.body.tasks[0].result[0]).toMatchObject({ accepted: 200, rejected: 0 });
      const end = await accountMoney(app.prisma, { id: who.id });
      expect(end.balance).toBeCloseTo(100 - 1_200 * rates.task_post, 6);
    }, 120_000);

    it('GraphQL postTasks retried with the same idempotencyKey answers the same tasks and charges once', async () => {
      const who = await account(10);
      const gql = async (variables: Record<string, unknown>) => {
        const mutation = `mutation($t: [TaskPostInput!]!, $k: String) {
          postTasks(tasks: $t, idempotencyKey: $k) { cost results { id statusCode cost } } }`;
        const res = await post(who.auth, '/graphql', JSON.stringify({ query: mutation, variables }), 'application/json');
        return res.body;
      };
      const tasks = [{ asin: 'B0SETTLEG1', marketplace: 'com' }, { asin: 'B0SETTLEG2', marketplace: 'de', tag: 'g' }];
      const first = await gql({ t: tasks, k: 'gql-once' });
      expect(first.errors).toBeUndefined();
      expect(first.data.postTasks.results.map((r: any) => r.statusCode)).toEqual([20100, 20100]);
      const again = await Promise.all([gql({ t: tasks, k: 'gql-once' }), gql({ t: tasks, k: 'gql-once' })]);
      for (const body of again) expect(body.data.postTasks).toEqual(first.data.postTasks);
      const money = await accountMoney(app.prisma, { id: who.id });
      expect(money.balance).toBeCloseTo(10 - 2 * rates.task_post, 9);
      expect(money.entries.filter((e) => e.kind === 'charge')).toHaveLength(2);
      expect(await app.prisma.task.count({ where: { accountId: who.id } })).toBe(2);

      // The key with other tasks, or on REST, is refused; a malformed key names the argument.
      const other = await gql({ t: tasks.slice(0, 1), k: 'gql-once' });
      expect(other.errors[0].extensions.code).toBe(40000);
      const rest = await post(who.auth, '/v1/retail/product/task_post', JSON.stringify(tasks), 'application/json', { 'Idempotency-Key': 'gql-once' });
      expect(rest.status).toBe(409);
      const malformed = await gql({ t: tasks, k: 'bad key\u0000' });
      expect(malformed.errors[0].extensions.code).toBe(40501);
      expect(malformed.errors[0].message).toContain('idempotencyKey');
      expect((await accountMoney(app.prisma, { id: who.id })).balance).toBeCloseTo(money.balance, 9);
    });

    it('a history or stats read that fails keeps no charge: charge and read are one transaction, nothing to refund', async () => {
      const who = await account(1);
      const body = JSON.stringify([{ asin: 'B0SETTLEH1', marketplace: 'com' }]);
      // A real failure of the read's statement: the table it reads is gone for a moment.
      await app.prisma.$executeRawUnsafe('ALTER TABLE observations RENAME TO observations_hidden');
      let history: Awaited<ReturnType<typeof post>>;
      let stats: Awaited<ReturnType<typeof post>>;
      try {
        history = await post(who.auth, '/v1/retail/product/history', body, 'application/json');
        stats = await post(who.auth, '/v1/retail/product/stats', body, 'application/json');
      } finally {
        await app.prisma.$executeRawUnsafe('ALTER TABLE observations_hidden RENAME TO observations');
      }
      for (const res of [history, stats]) {
        expect(res.status).toBe(500);
        expect(res.body).toMatchObject({ status_code: 50000, cost: 0 });
      }
      const money = await accountMoney(app.prisma, { id: who.id });
      expect(money.balance).toBeCloseTo(1, 9);
      expect(money.entries.map((e) => e.kind)).toEqual(['topup']);

      // Once the table is back, the same read is charged once, with its ledger entry.
      const ok = await post(who.auth, '/v1/retail/product/history', body, 'application/json');
      expect(ok.body.tasks[0]).toMatchObject({ status_code: 20000, cost: rates.history });
      const after = await accountMoney(app.prisma, { id: who.id });
      expect(after.balance).toBeCloseTo(1 - rates.history, 9);
      expect(after.entries.map((e) => e.kind)).toEqual(['topup', 'charge']);
    });

    it('GraphQL analytics: a field whose read and refund both fail is refunded by the reconciler; answered fields are kept', async () => {
      const who = await account(1);
      const settlements = async () => (await app.prisma.ledgerEntry.findMany({ where: { accountId: who.id, kind: 'charge' }, orderBy: { id: 'asc' } }))
        .map((e) => e.settlement);
      const gql = async () => (await post(who.auth, '/graphql', JSON.stringify({ query: '{ product(asin: "B0SETTLEA1", marketplace: "com") { cost stats { observations } } }' }), 'application/json')).body;

      const ok = await gql();
      expect(ok.errors).toBeUndefined();
      expect(await settlements()).toEqual(['kept']);

      // The read fails (its table is gone for a moment) and so does the refund (a trigger refuses it).
      await app.prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.kind = 'refund' THEN RAISE EXCEPTION 'injected refund failure'; END IF; RETURN NEW; END $$`);
      await app.prisma.$executeRawUnsafe('CREATE TRIGGER refuse_refunds BEFORE INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION refuse_refunds()');
      await app.prisma.$executeRawUnsafe('ALTER TABLE observations RENAME TO observations_hidden');
      let failed: any;
      try {
        failed = await gql();
      } finally {
        await app.prisma.$executeRawUnsafe('ALTER TABLE observations_hidden RENAME TO observations');
        await app.prisma.$executeRawUnsafe('DROP TRIGGER refuse_refunds ON ledger_entries');
      }
      expect(failed.errors[0].extensions.code).toBe(50000);
      expect(await settlements()).toEqual(['kept', null]);
      const open = await accountMoney(app.prisma, { id: who.id });
      expect(open.balance).toBeCloseTo(1 - 2 * rates.history, 9);

      // The reconciler refunds the open reservation past its bound, once; the kept one stays kept.
      expect(await reconcileReadReservations({ db: app.db, logger })).toMatchObject({ refunded: 0 });
      expect(await reconcileReadReservations({ db: app.db, logger }, { boundMs: 0 })).toMatchObject({ refunded: 1, errors: 0 });
      expect(await reconcileReadReservations({ db: app.db, logger }, { boundMs: 0 })).toMatchObject({ checked: 0 });
      expect(await settlements()).toEqual(['kept', 'refunded']);
      const money = await accountMoney(app.prisma, { id: who.id });
      expect(money.balance).toBeCloseTo(1 - rates.history, 9);
      expect(money.entries.map((e) => e.kind)).toEqual(['topup', 'charge', 'charge', 'refund']);
      expect(Math.round(money.ledgerSum * 1e6)).toBe(Math.round(money.balance * 1e6));

      // The customer's ledger shows each reservation with its settlement, and what the refund gave back.
      const res = await fetch(`${app.url}/v1/appendix/ledger`, { headers: { authorization: who.auth } });
      const page = ((await res.json()) as any).tasks[0].result[0];
      expect(page.total_count).toBe(4);
      const [refund, reserved, kept, topup] = page.items;
      expect(refund).toMatchObject({ kind: 'refund', amount: rates.history, reservation: null, refund_of: reserved.reservation.key });
      expect(reserved).toMatchObject({ kind: 'charge', amount: -rates.history, reservation: { settlement: 'refunded' } });
      expect(kept).toMatchObject({ kind: 'charge', reservation: { settlement: 'kept' }, refund_of: null });
      expect(topup).toMatchObject({ kind: 'topup', amount: 1, balance_after: 1, reservation: null });
      expect(refund.balance_after).toBeCloseTo(money.balance, 9);
    });

    it('a history export is a reservation kept once its last row is sent', async () => {
      const who = await account(1);
      const res = await fetch(`${app.url}/v1/retail/product/history/export?asin=B0SETTLEX1&marketplace=com&format=csv`, { headers: { authorization: who.auth } });
      expect(res.status).toBe(200);
      await res.text();
      const entries = await app.prisma.ledgerEntry.findMany({ where: { accountId: who.id, kind: 'charge' } });
      expect(entries.map((e) => [e.runKey?.startsWith('r:'), e.settlement])).toEqual([[true, 'kept']]);
    });

    it('a monitor terminated between reservation and read is refunded by the reconciler, once, and only after its run ended', async () => {
      const who = await account(1);
      const [added] = await addSubscriptions(app.db, who.id, [{ asin: 'B0SETTLEM1', marketplace: 'com', frequency: 'daily' }]);
      const subscriptionId = (added as { row: { id: number } }).row.id;
      // The subscription's monitor workflow (no worker polls its queue: it stays where it is).
      const handle = await temporal.client.workflow.start('monitorSubscription', { workflowId: monitorWorkflowId(subscriptionId), taskQueue: `settle-${database}`, args: [{}] });
      const runKey = `m:${subscriptionId}:${handle.firstExecutionRunId}:1`;
      expect(await startMonitoringRun(app.db, { subscriptionId, runKey, reserve: true })).toBe('reserved');
      const reserved = await accountMoney(app.prisma, { id: who.id });
      expect(reserved.balance).toBeCloseTo(1 - rates.monitoring, 9);

      const runs = temporalTaskLauncher(temporal.client, app.config);
      const reconcile = (graceMs?: number) => reconcileMonitoringRuns({ db: app.db, runs, logger }, { graceMs });
      // Younger than the grace period: not even looked at; older but its run going: left alone.
      expect(MONITORING_GRACE_MS).toBeGreaterThan(0);
      expect(await reconcile()).toMatchObject({ refunded: 0 });
      expect(await reconcile(0)).toMatchObject({ refunded: 0, running: 1 });
      expect((await accountMoney(app.prisma, { id: who.id })).balance).toBeCloseTo(reserved.balance, 9);

      await handle.terminate('an operator ended the monitor mid-run');
      expect(await reconcile(0)).toMatchObject({ checked: 1, refunded: 1, errors: 0 });
      expect(await reconcile(0)).toMatchObject({ checked: 0, refunded: 0 });
      const money = await accountMoney(app.prisma, { id: who.id });
      expect(money.balance).toBeCloseTo(1, 9);
      expect(money.entries.map((e) => e.kind)).toEqual(['topup', 'monitoring', 'refund']);
      const reservation = await app.prisma.ledgerEntry.findUniqueOrThrow({ where: { runKey } });
      expect(reservation.settlement).toBe('refunded');
      expect(Math.round(money.ledgerSum * 1e6)).toBe(Math.round(money.balance * 1e6));
    });
  });
}
