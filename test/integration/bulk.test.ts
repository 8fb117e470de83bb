/**
 * Bulk task_post (`text/csv`, `application/x-ndjson`) and the exports, through the Koa app on
 * PGlite (Temporal replaced by the recording launcher; bulk-e2e.test.ts runs the real stack): good
 * and bad rows (per-row codes, bad rows never charged, the ledger exact), task_post's charging
 * rules row after row, the reuse window, the tasks-per-minute rule, Idempotency-Key, and the
 * content of a batch's results export and of a history export (CSV and JSON Lines).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { storeObservation } from '../../core/observations.js';
import { flushUsage } from '../../core/usage.js';
import { version1Fields, type Product } from '../../core/product.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { storeRows } from '../support/observations.js';
import { accountMoney } from '../support/ledger.js';

let app: TestApp;
let seq = 0;

interface Caller { id: number; auth: string }

async function caller(balance = 10, limits: { tasksPerMinute?: number } = {}, plan = 'standard'): Promise<Caller> {
  const n = ++seq;
  const created = await createAccount(app.db, { login: `bulk${n}`, email: `bulk${n}@example.com`, balance, plan });
  if (limits.tasksPerMinute) await app.prisma.account.update({ where: { id: created.id }, data: limits });
  return { id: created.id, auth: `Bearer ${created.api_key}` };
}

async function upload(who: Caller, body: string, type: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${app.url}/v1/retail/product/task_post`, { method: 'POST', headers: { authorization: who.auth, 'content-type': type, ...headers }, body });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function get(who: Caller, path: string): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${app.url}${path}`, { headers: { authorization: who.auth } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function product(asin: string, observedAt: Date, extra: Partial<Product> = {}): Product {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: observedAt.toISOString(), status: 'ok', title: `Title ${asin}`,
    byline: ['Acme', 'Other'], variant: null, variants: [], price: { amount: 19.99, currency: 'USD' }, bsr: { rank: 42, category: 'Books', subcategories: [] },
    rating: 4.5, ratings_count: 7, image_url: null, details: {}, parser_version: 'test', ...version1Fields(), ...extra,
  };
}

async function expectLedgerExact(id: number, spent: number, before: number): Promise<void> {
  const money = await accountMoney(app.prisma, { id });
  expect(Math.round((before - money.balance) * 1e6)).toBe(Math.round(spent * 1e6));
  // `+ 0`: a float sum of exactly nothing may be -0.
  expect(Math.round(money.ledgerSum * 1e6) + 0).toBe(Math.round(money.balance * 1e6) + 0);
}

const summaryOf = (body: any) => body.tasks[0].result[0];

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('bulk task_post', () => {
  it('CSV: good rows become charged tasks with started workflows; bad rows are listed with their codes and never charged', async () => {
    const who = await caller(10);
    const csv = [
      'ASIN, Marketplace ,tag,priority,postback_url,note',
      'B0BULK0001,com,first,,,',
      'b0bulk0002,US,"quoted, tag",2,,x',
      'BAD,com,,,,',
      'B0BULK0003,zz,,,,',
      'B0BULK0004,com,,3,,',
      'B0BULK0005,com,a\u0000b,,,',
      'B0BULK0006,com,,,http://127.0.0.1/hook,',
      'B0BULK0007,com,too,few',
      'B0BULK0008,de,last,1,,',
    ].join('\r\n');
    const res = await upload(who, csv, 'text/csv; charset=utf-8');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, tasks_count: 1, tasks_error: 0, cost: 0.006 });
    const task = res.body.tasks[0];
    expect(task).toMatchObject({ status_code: 20100, cost: 0.006, data: { api: 'retail', function: 'task_post', format: 'csv', rows: 9 } });
    const summary = summaryOf(res.body);
    expect(summary).toMatchObject({ batch_id: task.id, rows: 9, accepted: 3, rejected: 6, cost: 0.006, retry_after: null, errors_truncated: false });
    expect(summary.rejected_by_code).toEqual({ 40000: 1, 40501: 3, 40502: 1, 40503: 1 });
    expect(summary.errors.map((e: any) => [e.row, e.status_code, e.status_message])).toEqual([
      [3, 40503, 'Invalid ASIN.'], [4, 40502, 'Unknown marketplace.'], [5, 40501, 'Invalid field: `priority`.'], [6, 40501, 'Invalid field: `tag`.'],
      [7, 40501, 'Invalid field: `postback_url`.'], [8, 40000, 'Bad Request. The row has 4 cells; the header has 6.'],
    ]);
    const tasks = await app.prisma.task.findMany({ where: { accountId: who.id }, orderBy: { asin: 'asc' } });
    expect(tasks.map((t) => [t.asin, t.marketplace, t.priority, t.tag, Number(t.cost)])).toEqual([
      ['B0BULK0001', 'com', 1, 'first', 0.0015], ['B0BULK0002', 'com', 2, 'quoted, tag', 0.003], ['B0BULK0008', 'de', 1, 'last', 0.0015],
    ]);
    expect(tasks.find((t) => t.asin === 'B0BULK0002')!.data).toEqual({ asin: 'b0bulk0002', marketplace: 'US', tag: 'quoted, tag', priority: 2, note: 'x', api: 'retail', function: 'task_post' });
    for (const t of tasks) expect(app.started).toContain(t.id);
    await expectLedgerExact(who.id, 0.006, 10);
    // Usage counts the upload as one task_post request carrying its rows.
    await flushUsage(app.db);
    const usage = await app.prisma.usageCounter.findMany({ where: { accountId: who.id } });
    expect(usage.map((u) => [u.endpoint, u.requests, u.tasks, Number(u.cost)])).toEqual([['task_post', 1, 9, 0.006]]);
  });

  it('JSON Lines: one task object per line; lines that are not task objects, unstorable text and bad fields fail alone', async () => {
    const who = await caller(10);
    const lines = [
      '{"asin":"B0NDJS0001","marketplace":"com","tag":"t"}',
      '',
      'not json',
      '[1,2]',
      '{"asin":"B0NDJS0002","marketplace":"com","tag":"a\\ud800b"}',
      '{"asin":"B0NDJS0003","marketplace":"com","x\\u0000":1}',
      '   ',
      '{"asin":"B0NDJS0004","marketplace":"uk","pingback_url":"https://example.com/p?id=$id"}',
    ].join('\n');
    const res = await upload(who, `${lines}\n`, 'application/x-ndjson');
    const summary = summaryOf(res.body);
    expect(summary).toMatchObject({ format: 'ndjson', rows: 6, accepted: 2, rejected: 4, cost: 0.003 });
    expect(summary.errors.map((e: any) => [e.row, e.status_code, e.status_message])).toEqual([
      [2, 40000, 'Bad Request. The row is not valid JSON.'], [3, 40000, 'Bad Request. The row is not a task object.'],
      [4, 40501, 'Invalid field: `tag`.'], [5, 40501, 'Invalid field: `x\uFFFD`.'],
    ]);
    await expectLedgerExact(who.id, 0.003, 10);
  });

  it('charges row after row as task_post does: a cheaper row after an unaffordable one is still charged', async () => {
    const who = await caller(0.0045);
    const res = await upload(who, 'asin,marketplace,priority\nB0PAY00001,com,2\nB0PAY00002,com,2\nB0PAY00003,com,1\nB0PAY00004,com,1\n', 'text/csv');
    const summary = summaryOf(res.body);
    expect(summary.errors.map((e: any) => [e.row, e.status_code])).toEqual([[2, 40200], [4, 40200]]);
    expect(summary).toMatchObject({ accepted: 2, cost: 0.0045 });
    await expectLedgerExact(who.id, 0.0045, 0.0045);
    const broke = await upload(who, 'asin,marketplace\nB0PAY00005,com\n', 'text/csv');
    expect(broke.body.tasks[0]).toMatchObject({ status_code: 40200, cost: 0 });
  });

  it('reuse window: a fresh observation completes the row at once; a fresh not_found one fails it 40402, refunded', async () => {
    await storeObservation(app.db, product('B0FRESH001', new Date()));
    await storeObservation(app.db, { ...product('B0FRESH002', new Date()), status: 'not_found', price: null, bsr: null, title: null });
    const who = await caller(1);
    const started = app.started.length;
    const res = await upload(who, 'asin,marketplace\nB0FRESH001,com\nB0FRESH002,com\n', 'text/csv');
    expect(summaryOf(res.body)).toMatchObject({ accepted: 2, rejected: 0, cost: 0.0015 });
    expect(app.started.length).toBe(started);
    const tasks = await app.prisma.task.findMany({ where: { accountId: who.id }, orderBy: { asin: 'asc' } });
    expect(tasks.map((t) => [t.state, t.statusCode, Number(t.cost)])).toEqual([['completed', 20000, 0.0015], ['failed', 40402, 0]]);
    await expectLedgerExact(who.id, 0.0015, 1);
  });

  it('tasks per minute: valid rows beyond the window are refused with 40202 and retry_after, uncharged; invalid rows take nothing', async () => {
    const who = await caller(10, { tasksPerMinute: 3 });
    const rows = ['BAD', 'B0RATE0001', 'B0RATE0002', 'B0RATE0003', 'B0RATE0004', 'B0RATE0005'].map((a) => `{"asin":"${a}","marketplace":"com"}`);
    const res = await upload(who, rows.join('\n'), 'application/x-ndjson');
    const summary = summaryOf(res.body);
    expect(summary).toMatchObject({ accepted: 3, rejected: 3, rejected_by_code: { 40202: 2, 40503: 1 } });
    expect(summary.retry_after).toBeGreaterThan(0);
    expect(summary.retry_after).toBeLessThanOrEqual(60);
    await expectLedgerExact(who.id, 0.0045, 10);
    // The window is used up: a JSON task_post now answers 429 as well.
    const json = await fetch(`${app.url}/v1/retail/product/task_post`, { method: 'POST', headers: { authorization: who.auth, 'content-type': 'application/json' }, body: '[{"asin":"B0RATE0006","marketplace":"com"}]' });
    expect(json.status).toBe(429);
  });

  it('plans without priority 2 refuse such rows with 40600, alone', async () => {
    const who = await caller(1, {}, 'basic');
    const res = await upload(who, 'asin,marketplace,priority\nB0PLAN0001,com,2\nB0PLAN0002,com,1\n', 'text/csv');
    expect(summaryOf(res.body)).toMatchObject({ accepted: 1, errors: [{ row: 1, status_code: 40600 }], cost: 0.0012 });
  });

  it('Idempotency-Key: the same upload again is replayed and charged nothing; another upload with the key is 409', async () => {
    const who = await caller(1);
    const csv = 'asin,marketplace\nB0IDEM0001,com\nB0IDEM0002,com\n';
    const first = await upload(who, csv, 'text/csv', { 'idempotency-key': 'bulk-key-1' });
    const again = await upload(who, csv, 'text/csv', { 'idempotency-key': 'bulk-key-1' });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await upload(who, `${csv}B0IDEM0003,com\n`, 'text/csv', { 'idempotency-key': 'bulk-key-1' });
    expect(other.status).toBe(409);
    await expectLedgerExact(who.id, 0.003, 1);
    expect(await app.prisma.task.count({ where: { accountId: who.id } })).toBe(2);
  });
});

describe('exports', () => {
  it('a batch\'s results: every row in order with its code, the Product of finished tasks; they leave tasks_ready', async () => {
    await storeObservation(app.db, product('B0EXPO0001', new Date(), { title: '=HYPERLINK("x")' }));
    const who = await caller(1);
    const res = await upload(who, 'asin,marketplace,tag\nB0EXPO0001,com,done\nBAD,com,\nB0EXPO0002,com,queued\n', 'text/csv');
    const { batch_id: batchId, results } = summaryOf(res.body);
    expect((await get(who, '/v1/retail/product/tasks_ready')).text).toContain('B0EXPO0001');

    const jsonl = await get(who, `${results}?format=jsonl`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(jsonl.headers.get('x-cost')).toBe('0');
    const lines = jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.row, l.status_code, l.asin, l.cost])).toEqual([[1, 20000, 'B0EXPO0001', 0.0015], [2, 40503, null, 0], [3, 40401, 'B0EXPO0002', 0.0015]]);
    expect(lines[0].product).toMatchObject({ asin: 'B0EXPO0001', title: '=HYPERLINK("x")', price: { amount: 19.99, currency: 'USD' } });
    expect(lines[1]).toMatchObject({ task_id: null, status_message: 'Invalid ASIN.', product: null });
    expect((await get(who, '/v1/retail/product/tasks_ready')).text).not.toContain('B0EXPO0001');

    const csv = await get(who, `/v1/retail/product/batch_results/${batchId.toUpperCase()}?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, first, second] = csv.text.split('\n');
    expect(header).toBe('row,task_id,status_code,status_message,cost,asin,marketplace,observed_at,status,title,price_amount,price_currency,bsr_rank,bsr_category,rating,ratings_count,list_price_amount,availability_status,buy_box_seller_name,prime,variant,byline,url,image_url,parser_version');
    // The title would run as a formula in a spreadsheet: it is prefixed with a quote.
    expect(first).toContain(`,"'=HYPERLINK(""x"")",19.99,USD,42,Books,4.5,7,`);
    expect(first).toContain(',Acme; Other,');
    expect(second).toBe(`2,,40503,Invalid ASIN.,0${','.repeat(20)}`);

    const stranger = await caller(1);
    expect((await get(stranger, `/v1/retail/product/batch_results/${batchId}`)).status).toBe(404);
    expect((await get(who, '/v1/retail/product/batch_results/not-a-uuid')).status).toBe(404);
    expect((await get(who, `/v1/retail/product/batch_results/${batchId}?format=xml`)).status).toBe(400);
  });

  it('history: every observation of the range, newest first, charged per started 1,000 rows', async () => {
    const base = Date.parse('2026-01-05T00:00:00Z');
    await storeRows(app.db, Array.from({ length: 1001 }, (_, i) => ({
        asin: 'B0HIST0001', marketplace: 'com', observedAt: new Date(base + i * 120_000), status: 'ok', url: 'https://www.amazon.com/dp/B0HIST0001',
        title: i === 1000 ? '@SUM(1)' : `t${i}`, priceAmount: String(i), priceCurrency: 'USD', parserVersion: 'test',
      })),
    );
    const who = await caller(1);
    const jsonl = await get(who, '/v1/retail/product/history/export?asin=b0hist0001&marketplace=us');
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('x-rows')).toBe('1001');
    expect(jsonl.headers.get('x-cost')).toBe('0.001');
    const products = jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(products).toHaveLength(1001);
    expect(products.map((p) => p.price.amount)).toEqual(Array.from({ length: 1001 }, (_, i) => 1000 - i));
    expect(products[0]).toMatchObject({ asin: 'B0HIST0001', marketplace: 'com', observed_at: new Date(base + 1000 * 120_000).toISOString(), bsr: null });
    await expectLedgerExact(who.id, 0.001, 1);
    await flushUsage(app.db);
    const usage = await app.prisma.usageCounter.findMany({ where: { accountId: who.id } });
    expect(usage.map((u) => [u.endpoint, u.requests, u.tasks, Number(u.cost)])).toEqual([['history_export', 1, 2, 0.001]]);

    const csv = await get(who, '/v1/retail/product/history/export?asin=B0HIST0001&marketplace=com&format=csv&date_from=2026-01-05&date_to=2026-01-05');
    expect(csv.headers.get('x-cost')).toBe('0.0005');
    const rows = csv.text.trimEnd().split('\n');
    expect(rows).toHaveLength(721);
    expect(rows[1]).toBe('B0HIST0001,com,2026-01-05T23:58:00.000Z,ok,t719,719,USD,,,,,,,,,,,https://www.amazon.com/dp/B0HIST0001,,test');

    const empty = await get(who, '/v1/retail/product/history/export?asin=B0NONE0000&marketplace=com');
    expect([empty.status, empty.text, empty.headers.get('x-cost')]).toEqual([200, '', '0.0005']);
    const poor = await caller(0);
    const refused = await get(poor, '/v1/retail/product/history/export?asin=B0HIST0001&marketplace=com');
    expect(refused.status).toBe(402);
    expect((await get(who, '/v1/retail/product/history/export?asin=B0HIST0001&marketplace=com&date_from=2026-02-01&date_to=2026-01-01')).status).toBe(400);
  });
});
