/**
 * A bulk upload end to end on the whole stack (real Temporal dev server, the worker with real
 * Chromium reading the synthetic replay pages, PGlite): each accepted CSV row becomes a
 * `productTask` workflow whose id is its task id; once read, the batch's results export holds each
 * row's Product or final code (40402 refunded), the ledger adds up, and the history export then
 * holds the new observations.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { Stack } from '../../scripts/stack.js';
import { waitFor } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

describe('bulk task_post on the whole stack', () => {
  let running: TestStack;
  let stack: Stack;
  let client: Client;
  let auth: string;
  let accountId: number;

  beforeAll(async () => {
    running = await startTestStack();
    ({ stack, client } = running);
    const created = await createAccount(stack.db, { login: 'bulk', email: 'bulk@example.com', balance: 1 });
    accountId = created.id;
    auth = `Bearer ${created.api_key}`;
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('rows become workflows; the results export holds their Products and codes; history exports the observations', async () => {
    const csv = 'asin,marketplace,tag\nB0000000P1,de,p\nB0000000N1,com,n\nB0000000F1,com,f\nBAD,com,x\n';
    const res = await fetch(`${stack.api.url}/v1/retail/product/task_post`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/csv' }, body: csv });
    const summary = (await res.json()).tasks[0].result[0];
    expect(summary).toMatchObject({ rows: 4, accepted: 3, rejected: 1, cost: 0.0045 });

    const tasks = await stack.db.prisma.task.findMany({ where: { accountId }, orderBy: { asin: 'asc' } });
    for (const task of tasks) {
      const described = await client.workflow.getHandle(task.id).describe();
      expect(described.type).toBe('productTask');
    }
    await waitFor(async () => (await stack.db.prisma.task.count({ where: { accountId, state: { in: ['queued', 'running'] } } })) === 0, 120_000, 250);

    const exported = await fetch(`${stack.api.url}${summary.results}?format=jsonl`, { headers: { authorization: auth } });
    const rows = (await exported.text()).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(rows.map((r) => [r.row, r.status_code, r.cost])).toEqual([[1, 20000, 0.0015], [2, 20000, 0.0015], [3, 40402, 0], [4, 40503, 0]]);
    expect(rows[0].product).toMatchObject({ asin: 'B0000000P1', marketplace: 'de', url: 'https://www.amazon.de/dp/B0000000P1' });
    expect(rows[0].product.title).toEqual(expect.any(String));
    expect(rows[1].product).toMatchObject({ asin: 'B0000000N1', marketplace: 'com', status: 'no_bsr', bsr: null });
    expect(rows[2].product).toBeNull();

    const money = await accountMoney(stack.db.prisma, { id: accountId });
    expect(Math.round((1 - money.balance) * 1e6)).toBe(3000);
    expect(Math.round(money.ledgerSum * 1e6)).toBe(Math.round(money.balance * 1e6));

    const history = await fetch(`${stack.api.url}/v1/retail/product/history/export?asin=B0000000P1&marketplace=de&format=csv`, { headers: { authorization: auth } });
    const lines = (await history.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^B0000000P1,de,\d{4}-\d\d-\d\dT[\d:.]+Z,\w+,/);
  });
});
