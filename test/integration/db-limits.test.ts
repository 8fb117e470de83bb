/**
 * Database limits on the real PostgreSQL, wired from configuration as production opens the database
 * (core/db/database.ts `openDatabase`): DATABASE_STATEMENT_TIMEOUT cancels a statement held past it
 * and the request answers 50000 "The database did not answer in time" — not a hang, and nothing
 * charged (a cancelled charge changes nothing; an element already charged is refunded);
 * DATABASE_POOL_MAX bounds the connections and DATABASE_POOL_TIMEOUT ends a wait for one with 50000
 * "No database connection was free in time". Statements are held by a second session that locks
 * the table they need.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { loadConfig } from '../../core/config.js';
import { openDatabase } from '../../core/db/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const LIMITS = { DATABASE_POOL_MAX: '4', DATABASE_POOL_TIMEOUT: '5s', DATABASE_STATEMENT_TIMEOUT: '1500ms', DATABASE_IDLE_TRANSACTION_TIMEOUT: '5s' };
const TOO_SLOW = 'Internal error. The database did not answer in time; retry allowed.';
const BUSY = 'Internal error. No database connection was free in time; retry allowed.';
const ELEMENT = { asin: 'B0CHX1W1XY', marketplace: 'com' };

const postgresPrerequisite = await postgres();
let app: TestApp;
let account: { id: number; login: string; api_key: string };

beforeAll(async () => {
  if (postgresPrerequisite.missing) return;
  app = await startTestApp({
    database: 'postgres',
    env: LIMITS,
    dbFor: async (url) => (await openDatabase(loadConfig({ DATABASE_URL: url, ...LIMITS }))),
  });
  account = await createAccount(app.db, { login: 'patient', email: 'patient@example.com', balance: 10 });
});

afterAll(async () => {
  await app?.close();
});

/** A request with `key` to the app at `base`; gives up after 10 s (a statement without a timeout would hang). */
async function call(base: string, key: string, path: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json(), ms: performance.now() - started };
}

/** A request of the statement tests' account. */
const request = (path: string, body?: unknown) => call(app.url, account.api_key, path, body);

/** Runs `fn` while another session of `dbUrl` holds an ACCESS EXCLUSIVE lock on `table` (even reads of it wait). */
async function whileLocked<T>(dbUrl: string, table: string, fn: (holder: pg.Client) => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: dbUrl });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await fn(holder);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  }
}

/**
 * Sessions of the holder's database waiting for a lock. Inside a transaction pg_stat_activity is a
 * snapshot taken at its first read: the snapshot is dropped first.
 */
async function waitingOnLocks(holder: pg.Client): Promise<number> {
  await holder.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return rows[0]!.n;
}

describeNeeding([postgresPrerequisite], 'database pool and statement limits (PostgreSQL)', () => {
  it('a charge held past DATABASE_STATEMENT_TIMEOUT answers 50000 "did not answer in time", nothing charged', async () => {
    const before = await accountMoney(app.prisma, { id: account.id });
    const answer = await whileLocked(app.dbUrl, 'tasks', () => request('/v1/retail/product/task_post', [ELEMENT]));
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ status_code: 50000, status_message: TOO_SLOW, cost: 0 });
    expect(answer.ms).toBeGreaterThan(1_400);
    expect(answer.ms).toBeLessThan(5_000);
    expect(await accountMoney(app.prisma, { id: account.id })).toEqual(before);
    expect(await app.prisma.task.count({ where: { accountId: account.id } })).toBe(0);
    // Nothing is left broken: once the lock is gone the same request is served and charged.
    const served = await request('/v1/retail/product/task_post', [ELEMENT]);
    expect(served.body.tasks[0].status_code).toBe(20100);
  });

  it('a read held past the timeout after its charge answers 50000 and keeps no charge (charge and read are one transaction)', async () => {
    const before = await accountMoney(app.prisma, { id: account.id });
    const answer = await whileLocked(app.dbUrl, 'observations', () => request('/v1/retail/product/history', [ELEMENT, ELEMENT]));
    expect(answer.body).toMatchObject({ status_code: 50000, status_message: TOO_SLOW });
    const after = await accountMoney(app.prisma, { id: account.id });
    expect(after.balance).toBe(before.balance);
    expect(after.ledgerSum).toBeCloseTo(after.balance, 6);
    // The first element's charge rolled back with its read; the second was never reached.
    expect(after.entries.slice(before.entries.length).map((e) => e.kind)).toEqual([]);
  });

  it('GraphQL answers the same code and message, nothing charged', async () => {
    const before = await accountMoney(app.prisma, { id: account.id });
    const answer = await whileLocked(app.dbUrl, 'tasks', () => request('/graphql', {
      query: 'mutation($tasks: [TaskPostInput!]!) { postTasks(tasks: $tasks) { cost } }',
      variables: { tasks: [ELEMENT] },
    }));
    expect(answer.body.errors).toMatchObject([{ message: TOO_SLOW, extensions: { code: 50000 } }]);
    expect(await accountMoney(app.prisma, { id: account.id })).toEqual(before);
  });

  it('with every connection of the pool busy, a request waits DATABASE_POOL_TIMEOUT, then answers 50000 "no connection free"', async () => {
    // Its own app: statements held as long as the test needs (a timeout would free the pool).
    const limits = { DATABASE_POOL_MAX: '2', DATABASE_POOL_TIMEOUT: '500ms', DATABASE_STATEMENT_TIMEOUT: '30s' };
    const busy = await startTestApp({
      database: 'postgres',
      env: limits,
      dbFor: async (url) => (await openDatabase(loadConfig({ DATABASE_URL: url, ...limits }))),
    });
    try {
      const owner = await createAccount(busy.db, { login: 'crowded', email: 'crowded@example.com', balance: 10 });
      const before = await accountMoney(busy.prisma, { id: owner.id });
      const answers = await whileLocked(busy.dbUrl, 'tasks', async (holder) => {
        // Two task_posts hold both connections of the pool (DATABASE_POOL_MAX=2), each waiting on the lock.
        const held = [call(busy.url, owner.api_key, '/v1/retail/product/task_post', [ELEMENT]), call(busy.url, owner.api_key, '/v1/retail/product/task_post', [ELEMENT])];
        await waitFor(async () => (await waitingOnLocks(holder)) === 2, 20_000, 20);
        const waiting = await call(busy.url, owner.api_key, '/v1/appendix/user_data');
        return { waiting, held };
      });
      expect(answers.waiting.status).toBe(500);
      expect(answers.waiting.body).toMatchObject({ status_code: 50000, status_message: BUSY, cost: 0 });
      expect(answers.waiting.ms).toBeGreaterThan(450);
      expect(answers.waiting.ms).toBeLessThan(5_000);
      // Once the lock is gone the held requests are served; only what they report is charged.
      const held = await Promise.all(answers.held);
      expect(held.map((h) => h.body.tasks[0].status_code)).toEqual([20100, 20100]);
      const after = await accountMoney(busy.prisma, { id: owner.id });
      expect(after.balance).toBeCloseTo(before.balance - held[0]!.body.cost - held[1]!.body.cost, 6);
      expect((await call(busy.url, owner.api_key, '/v1/appendix/user_data')).status).toBe(200);
    } finally {
      await busy.close();
    }
  });
});
