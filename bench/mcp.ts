/**
 * MCP benchmark: `npx tsx bench/mcp.ts [--db pglite|postgres|both]`.
 *
 * `get_product` over Streamable HTTP (/mcp, the official SDK's client, one JSON-RPC POST per call)
 * on a stored product, beside REST POST live's cache hit on the same product, one request at a
 * time and alternating (BENCH_MCP_CALLS of each, default 200, after 20 warm-ups each), so both
 * see the same machine: p50 / p95 of each and the difference of the p50s (target ≤ 5 ms).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { storeObservation } from '../core/observations.js';
import { briefCall } from './http.js';
import { sampleProduct } from './pages.js';
import { benchAccount, runPart } from './stack.js';
import { awaitQuiet, cpuShare, cpuSnapshot, envInt, p50, p95 } from './machine.js';

const CALLS = envInt('BENCH_MCP_CALLS', 200);

await runPart('mcp', 'mcp: get_product on a stored product beside REST live\'s cache hit', {}, async (bench, results) => {
  const account = await benchAccount(bench.db);
  await storeObservation(bench.db, sampleProduct('BM00000001'));
  const element = { asin: 'BM00000001', marketplace: 'com', max_age_minutes: 60 };
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bench.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${account.key}` } } }));
  const rest = async () => {
    const r = await briefCall(`${bench.url}/v1/retail/product/live`, account.basic, 'POST', [element]);
    if (r.status !== 200 || r.taskCodes[0] !== 20000) throw new Error(`live cache hit failed: ${r.status} ${r.taskCodes.join(', ')}`);
    return r.ms;
  };
  const mcp = async () => {
    const t = performance.now();
    const r = await client.callTool({ name: 'get_product', arguments: element });
    const ms = performance.now() - t;
    if (r.isError || (r.structuredContent as { status_code?: number } | undefined)?.status_code !== 20000) throw new Error(`get_product failed: ${JSON.stringify(r).slice(0, 300)}`);
    return ms;
  };
  try {
    for (let i = 0; i < 20; i++) { await rest(); await mcp(); }
    await awaitQuiet('mcp');
    const cpu0 = cpuSnapshot();
    const restMs: number[] = [];
    const mcpMs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      // Alternate which goes first, so neither always follows the other.
      if (i % 2 === 0) { restMs.push(await rest()); mcpMs.push(await mcp()); } else { mcpMs.push(await mcp()); restMs.push(await rest()); }
    }
    const cpu = cpuShare(cpu0, cpuSnapshot());
    console.log(`  ${CALLS} calls of each, alternating`);
    results.add('REST live cache hit p50', p50(restMs), 'ms', { cpu });
    results.add('MCP get_product (stored) p50', p50(mcpMs), 'ms', { cpu });
    results.add('MCP get_product p50 − REST live p50', p50(mcpMs) - p50(restMs), 'ms', { target: { op: '<=', limit: 5 }, cpu });
    results.add('REST live cache hit p95', p95(restMs), 'ms');
    results.add('MCP get_product (stored) p95', p95(mcpMs), 'ms');
  } finally {
    await client.close();
  }
});
