/**
 * GraphQL document limits: `npx tsx bench/graphql.ts` (part `graphql` of `npm run bench`, once:
 * the documents measured are refused before any SQL, so the database does not matter).
 *
 * The app (`buildApp`) on an embedded PGlite, listening on a free port; requests are sent one at a
 * time from the client process (bench/client.ts), so latency is measured outside the service's
 * event loop. BENCH_GRAPHQL_REQUESTS (default 50) requests of each kind, each document new (its
 * operation name), so yoga's parse and validation caches never answer for it:
 * - a chain of 30 fragments, each spreading the next one twice (2^29 paths if walked without a
 *   memo), anonymous and authenticated: refused by the fragment limit, p50 and max;
 * - a chain of 20 (within the fragment limit), authenticated: validated in full, then refused by
 *   the breadth limit when it runs (after authentication and the rate limits), p50 and max.
 * Target: p50 ≤ 50 ms for the 30-fragment chain.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAccount } from '../api/admin/accounts.js';
import { buildApp } from '../api/app.js';
import { loadConfig } from '../core/config.js';
import { startEmbeddedPostgres } from '../core/db/embedded-postgres.js';
import { applyMigrations } from '../core/db/migrator.js';
import { createDb } from '../core/db/db.js';
import { createLogger } from '../core/logger.js';
import { call } from './http.js';
import { envInt, p50, printHeader, Results } from './machine.js';

const REQUESTS = envInt('BENCH_GRAPHQL_REQUESTS', 50);
let documents = 0;

/** `links` fragments on Query, each spreading the next one twice; a new document every call. */
function fragmentChain(links: number): string {
  const fragments = Array.from({ length: links - 1 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query Chain${++documents} { ...F0 } ${fragments.join(' ')} fragment F${links - 1} on Query { marketplaces { code } }`;
}

printHeader('GraphQL document limits (bench/graphql.ts)', 'PGlite (the refusals measured run no SQL)');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-bench-graphql-'));
const embedded = await startEmbeddedPostgres(dataDir);
let failed = false;
try {
  await applyMigrations(embedded.url);
  const db = createDb(embedded.url, 1);
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const launcher = { start: async () => undefined, startWebhooks: async () => undefined, waitFor: async () => false, cancel: async () => undefined };
  const server = buildApp({ config, db, launcher, logger: createLogger('silent') }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const account = await createAccount(db, { login: 'bench', email: 'bench@example.com', balance: 1 });
  await db.prisma.account.update({ where: { id: account.id }, data: { requestsPerMinute: 1_000_000_000, tasksPerMinute: 1_000_000_000 } });
  const results = new Results('graphql', 'none');

  const measure = async (name: string, links: number, auth: string, expected: RegExp, target?: number) => {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const res = await call(url, auth, 'POST', { query: fragmentChain(links) });
      const message = String(res.body?.errors?.[0]?.message ?? '');
      if (res.body?.errors?.[0]?.extensions?.code !== 40000 || !expected.test(message)) throw new Error(`${name}: unexpected answer ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      times.push(res.ms);
    }
    results.add(`${name} p50`, p50(times), 'ms', { digits: 2, ...(target !== undefined && { target: { op: '<=', limit: target } }) });
    results.add(`${name} max`, Math.max(...times), 'ms', { digits: 2 });
  };
  console.log(`  ${REQUESTS} requests of each, one at a time, every document new`);
  await measure('30-fragment chain refused, anonymous', 30, '', /Fragment limit/, 50);
  await measure('30-fragment chain refused, authenticated', 30, `Bearer ${account.api_key}`, /Fragment limit/, 50);
  await measure('20-fragment chain refused, authenticated', 20, `Bearer ${account.api_key}`, /breadth/);
  server.close();
  await db.close();
} catch (error) {
  failed = true;
  console.error('graphql failed:', error);
} finally {
  await embedded.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
