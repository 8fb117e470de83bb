/**
 * The MCP tool scenario both transports run (mcp-http.test.ts over Streamable HTTP on PGlite,
 * mcp-stdio.postgres.test.ts over stdio on PostgreSQL): tools/list with schemas that compile,
 * every tool called, money and usage exact afterwards, refusals (402, hostile input) as tool
 * errors with the service's code. The whole stack runs (Temporal dev server, worker, Chromium),
 * the synthetic replay pages standing in for the marketplace.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { PLANS } from '../../core/pricing.js';
import { flushUsage, usageRows, utcDay } from '../../core/usage.js';
import { roundUsd } from '../../core/domain/money.js';
import type { Stack } from '../../scripts/stack.js';
import { apiClient } from '../support/http.js';
import { accountMoney } from '../support/ledger.js';
import { toolCall } from '../support/mcp.js';

const TOOL_NAMES = ['get_product', 'product_history', 'product_stats', 'monitor_product', 'list_monitors', 'account', 'search_keyword', 'keyword_rank_history'];
const product = { asin: 'B0000000P1', marketplace: 'de' };

/**
 * Defines the scenario's tests. `stack()` is the running stack; `connect(key)` a client of the
 * transport under test for the account of `key`.
 */
export function defineMcpToolTests(stack: () => Stack, connect: (key: string) => Promise<Client>, login: string): void {
  const rates = PLANS.standard!.rates;

  it('lists every tool with an input and output schema that compile, and its price in the description', async () => {
    const { api_key: key } = await createAccount(stack().db, { login: `${login}-list`, email: `${login}-list@example.com`, balance: 1 });
    const client = await connect(key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
      const ajv = new Ajv2020({ strict: false });
      (addFormats as unknown as (a: Ajv2020) => void)(ajv);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
        expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.get_product!.description).toContain(`$${rates.live} USD`);
      expect(byName.product_history!.description).toContain(`$${rates.history} USD`);
      expect(byName.monitor_product!.description).toContain(`$${rates.monitoring} USD`);
      expect(byName.search_keyword!.description).toContain(`$${rates.search_live} USD`);
      expect(byName.keyword_rank_history!.description).toContain(`$${rates.history} USD`);
      // The input schema is the REST element's: the ASIN field with its case-insensitive pattern.
      expect(ajv.validate(byName.get_product!.inputSchema, { asin: 'b0000000p1', marketplace: 'DE' })).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('runs every tool, charged as its REST call: balance, ledger and usage exact', { timeout: 180_000 }, async () => {
    const { id, api_key: key } = await createAccount(stack().db, { login, email: `${login}@example.com`, balance: 10 });
    const client = await connect(key);
    try {
      const fresh = await toolCall(client, 'get_product', { ...product, max_age_minutes: 0 });
      expect(fresh).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.live, result_count: 1, result: [{ asin: 'B0000000P1', marketplace: 'de' }] } });
      const stored = await toolCall(client, 'get_product', { ...product, max_age_minutes: 60 });
      expect(stored).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.live, result: [{ asin: 'B0000000P1' }] } });

      // idempotency_key: the second call replays the first task and is charged nothing.
      const once = await toolCall(client, 'get_product', { ...product, idempotency_key: `${login}-k1` });
      const again = await toolCall(client, 'get_product', { ...product, idempotency_key: `${login}-k1` });
      expect(once.ok && again.ok && again.task.id === once.task.id).toBe(true);
      const other = await toolCall(client, 'get_product', { ...product, max_age_minutes: 5, idempotency_key: `${login}-k1` });
      expect(other).toMatchObject({ ok: false, error: { status_code: 40000 } });

      const history = await toolCall(client, 'product_history', { ...product, limit: 10 });
      expect(history).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.history } });
      expect(history.ok && history.task.result.length).toBeGreaterThanOrEqual(1);
      const stats = await toolCall(client, 'product_stats', { ...product, days: 30 });
      expect(stats).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.history, result: [{ asin: 'B0000000P1' }] } });

      const spent = roundUsd(3 * rates.live + 2 * rates.history);
      const account = await toolCall(client, 'account', {});
      expect(account).toMatchObject({ ok: true, task: { status_code: 20000, cost: 0, result: [{ login, balance: roundUsd(10 - spent), plan: 'standard' }] } });
      let money = await accountMoney(stack().db.prisma, { id });
      expect(money.balance).toBeCloseTo(10 - spent, 9);
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);

      const monitor = await toolCall(client, 'monitor_product', { ...product, frequency: 'daily', tag: 'mcp' });
      expect(monitor).toMatchObject({ ok: true, task: { status_code: 20000, cost: 0, result: [{ asin: 'B0000000P1', marketplace: 'de', frequency: 'daily', tag: 'mcp' }] } });
      const list = await toolCall(client, 'list_monitors', { limit: 10 });
      expect(list).toMatchObject({ ok: true, task: { status_code: 20000, result: [{ asin: 'B0000000P1', tag: 'mcp' }] } });

      // Monitoring deliveries are charged by the monitor, each at the monitoring rate: the rest is the calls'.
      money = await accountMoney(stack().db.prisma, { id });
      const deliveries = money.entries.filter((e) => e.subscriptionId !== null);
      expect(money.balance).toBeCloseTo(10 - spent + deliveries.reduce((s, e) => s + e.amount, 0), 9);
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);

      // Metered under the REST endpoints' names: live 4 requests, 3 tasks (the replay counts none).
      await flushUsage(stack().db);
      const usage = await usageRows(stack().db, id, utcDay(), utcDay());
      const live = usage.filter((r) => r.endpoint === 'live');
      expect(live.reduce((s, r) => s + r.requests, 0)).toBe(5);
      expect(live.reduce((s, r) => s + r.tasks, 0)).toBe(3);
      expect(roundUsd(live.reduce((s, r) => s + r.cost, 0))).toBe(roundUsd(3 * rates.live));
    } finally {
      await client.close();
    }
  });

  it('refuses as the REST call does: 402 without balance, hostile input with its code, never a stack', { timeout: 60_000 }, async () => {
    const { id, api_key: key } = await createAccount(stack().db, { login: `${login}-poor`, email: `${login}-poor@example.com`, balance: 0 });
    const client = await connect(key);
    try {
      expect(await toolCall(client, 'get_product', { ...product, max_age_minutes: 60 })).toEqual({ ok: false, error: { status_code: 40200, status_message: expect.any(String) } });
      expect(await toolCall(client, 'product_history', product)).toMatchObject({ ok: false, error: { status_code: 40200 } });
      // The same codes as the REST call with the same element (a NUL is text the database cannot store: 40501).
      const nulAsin = { asin: 'B0000\u0000000P1', marketplace: 'de' };
      const nul = await toolCall(client, 'get_product', nulAsin);
      const rest = await apiClient(stack().api.url, { key }).post('/v1/retail/product/live', [nulAsin]);
      expect(nul).toMatchObject({ ok: false, error: { status_code: rest.body.status_code, status_message: rest.body.status_message } });
      expect(rest.body.status_code).toBeGreaterThanOrEqual(40500);
      const huge = await toolCall(client, 'product_history', { asin: 'B0000000P1', marketplace: 'x'.repeat(1_000_000) });
      expect(huge).toMatchObject({ ok: false, error: { status_code: 40502 } });
      const tag = await toolCall(client, 'monitor_product', { ...product, frequency: 'daily', tag: 'a\u0000b' });
      expect(tag).toMatchObject({ ok: false, error: { status_code: 40501 } });
      const key2 = await toolCall(client, 'get_product', { ...product, idempotency_key: 'bad key\u0000' });
      expect(key2).toMatchObject({ ok: false, error: { status_code: 40501, status_message: expect.stringContaining('idempotency_key') } });
      for (const answer of [nul, huge, tag, key2]) expect(JSON.stringify(answer)).not.toMatch(/\bat .+:\d+:\d+/);
      const money = await accountMoney(stack().db.prisma, { id });
      expect(money.balance).toBe(0);
      expect(money.entries.filter((e) => e.kind !== 'topup')).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('searches a keyword and answers its rank history, charged as the REST calls; a hostile keyword is refused with 40501, nothing charged', { timeout: 120_000 }, async () => {
    const { id, api_key: key } = await createAccount(stack().db, { login: `${login}-kw`, email: `${login}-kw@example.com`, balance: 1 });
    const client = await connect(key);
    try {
      // The synthetic replay pages hold no search page: the marketplace answers "No results for".
      const search = await toolCall(client, 'search_keyword', { keyword: `  ${login}  nothing `, marketplace: 'de' });
      expect(search).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.search_live, result: [{ keyword: `${login} nothing`, marketplace: 'de', page: 1, status: 'no_results', items: [] }] } });
      const ranks = await toolCall(client, 'keyword_rank_history', { keyword: `${login} nothing`, marketplace: 'de', asin: 'B0000000P1', days: 7 });
      expect(ranks).toMatchObject({ ok: true, task: { status_code: 20000, cost: rates.history, result: [{ page: 1, position: null, organic_position: null, sponsored: null }] } });
      for (const keyword of ['a\u0000b', '\ud800x', 'k'.repeat(10_000), '   ', 'a\u0007b']) {
        expect(await toolCall(client, 'search_keyword', { keyword, marketplace: 'de' }), JSON.stringify(keyword.slice(0, 9))).toMatchObject({ ok: false, error: { status_code: 40501, status_message: expect.stringContaining('keyword') } });
      }
      const money = await accountMoney(stack().db.prisma, { id });
      expect(money.balance).toBeCloseTo(1 - rates.search_live - rates.history, 9);
      expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    } finally {
      await client.close();
    }
  });

  it('counts each tool call against the account\'s requests per minute: over it, 40202 with Retry-After', { timeout: 60_000 }, async () => {
    const { id, api_key: key } = await createAccount(stack().db, { login: `${login}-rl`, email: `${login}-rl@example.com`, balance: 1 });
    await stack().db.prisma.account.update({ where: { id }, data: { requestsPerMinute: 2 } });
    const client = await connect(key);
    try {
      expect(await toolCall(client, 'account', {})).toMatchObject({ ok: true });
      expect(await toolCall(client, 'list_monitors', {})).toMatchObject({ ok: true });
      const refused = await toolCall(client, 'get_product', { ...product, max_age_minutes: 60 });
      expect(refused).toMatchObject({ ok: false, error: { status_code: 40202, retry_after_seconds: expect.any(Number) } });
      expect((await accountMoney(stack().db.prisma, { id })).balance).toBe(1);
    } finally {
      await client.close();
    }
  });
}
