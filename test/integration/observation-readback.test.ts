/**
 * Every saved product page of the fixture corpus (../shared/fixtures/pages) read through the task
 * path (task_post → Temporal workflow → real Chromium against the replay server → the parser →
 * the observation repository), then read back: what task_get answered when the task completed is
 * compared byte for byte with what history, the history export, task_get again and GraphQL (task
 * and productHistory) answer for the same observation. The parser's version 2 values are whatever
 * it yields; nothing here depends on them being null.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { MARKETPLACES } from '../../core/marketplaces.js';
import type { Product } from '../../core/product.js';
import { loadManifest } from '../../replay/manifest.js';
import type { Stack } from '../../scripts/stack.js';
import { sharedPagesDir } from '../support/env.js';
import { gqlClient, type GqlClient } from '../support/graphql.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { GRAPHQL_PRODUCT_FIELDS, graphqlProductOf } from '../support/observations.js';
import { describeNeeding, savedPages } from '../support/prerequisites.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

describeNeeding([savedPages], 'read-back of the fixture corpus', () => {
  let running: TestStack;
  let stack: Stack;
  let api: ApiClient;
  let gql: GqlClient;
  /** Every product page: its task and what task_get answered when it completed. */
  const reads: { asin: string; marketplace: string; taskId: string; answer: Product | null; code: number }[] = [];

  beforeAll(async () => {
    running = await startTestStack({ pages: sharedPagesDir, env: { REUSE_WINDOW: '0s', SOURCE_READ_ATTEMPTS: '3' } });
    ({ stack } = running);
    const created = await createAccount(stack.db, { login: 'reader', email: 'reader@example.com', balance: 100 });
    api = apiClient(stack.api.url, { login: created.login, key: created.api_key });
    gql = gqlClient(stack.api.url, { login: created.login, key: created.api_key });

    const manifest = await loadManifest(sharedPagesDir);
    const pages = [...manifest.pages.values()].filter((p) => ['product', 'no_bsr', 'unavailable', 'not_found'].includes(p.kind)).flatMap((p) => {
      const marketplace = MARKETPLACES.find((m) => m.domain === p.domain);
      return marketplace ? [{ asin: p.asin, marketplace: marketplace.code }] : [];
    });
    const posted = await api.post('/v1/retail/product/task_post', pages);
    expect(posted.status).toBe(200);
    for (const [i, task] of (posted.body.tasks as any[]).entries()) reads.push({ ...pages[i]!, taskId: task.id, answer: null, code: 0 });
    await waitFor(async () => {
      const ready = (await api.get('/v1/retail/product/tasks_ready')).body.tasks[0].result as unknown[];
      return ready.length === reads.length;
    }, 600_000, 1_000);
    for (const read of reads) {
      const task = (await api.get(`/v1/retail/product/task_get/${read.taskId}`)).body.tasks[0];
      read.code = task.status_code;
      read.answer = task.result?.[0] ?? null;
    }
  }, 900_000);

  afterAll(async () => {
    await running?.stop();
  });

  it('every product page was read and stored', () => {
    expect(reads.length).toBeGreaterThanOrEqual(40);
    expect(reads.filter((r) => r.code !== 20000).map((r) => `${r.marketplace}:${r.asin} ${r.code}`)).toEqual([]);
  });

  it('task_get again, history and the export answer each observation byte for byte as task_get did when it completed', async () => {
    for (const read of reads) {
      const label = `${read.marketplace}:${read.asin}`;
      const again = (await api.get(`/v1/retail/product/task_get/${read.taskId}`)).body.tasks[0].result[0];
      expect(JSON.stringify(again), label).toBe(JSON.stringify(read.answer));
      const history = (await api.post('/v1/retail/product/history', [{ asin: read.asin, marketplace: read.marketplace }])).body.tasks[0].result as Product[];
      const same = history.filter((p) => p.observed_at === read.answer!.observed_at);
      expect(same.map((p) => JSON.stringify(p)), label).toEqual([JSON.stringify(read.answer)]);
      // One line is parsed as JSON by the client; more are text.
      const exported = (await api.get(`/v1/retail/product/history/export?asin=${read.asin}&marketplace=${read.marketplace}`)).body as unknown;
      const lines = typeof exported === 'string' ? exported.trimEnd().split('\n') : [JSON.stringify(exported)];
      expect(lines, label).toEqual(history.map((p) => JSON.stringify(p)));
    }
  });

  it('GraphQL answers the same Product for the task and in productHistory', async () => {
    for (const read of reads) {
      const label = `${read.marketplace}:${read.asin}`;
      const expected = JSON.stringify(graphqlProductOf(read.answer!));
      const task = await gql(`query($id: ID!) { task(id: $id) { product { ${GRAPHQL_PRODUCT_FIELDS} } } }`, { id: read.taskId });
      expect(task.body.errors, label).toBeUndefined();
      expect(JSON.stringify(task.body.data.task.product), label).toBe(expected);
      const history = await gql(`query($asin: String!, $marketplace: String!) { productHistory(asin: $asin, marketplace: $marketplace) { products { ${GRAPHQL_PRODUCT_FIELDS} } } }`, { asin: read.asin, marketplace: read.marketplace });
      expect(history.body.errors, label).toBeUndefined();
      const same = (history.body.data.productHistory.products as { observedAt: string }[]).filter((p) => p.observedAt === read.answer!.observed_at);
      expect(same.map((p) => JSON.stringify(p)), label).toEqual([expected]);
    }
  });

  it('the stored layout holds one content version per page and few distinct texts', async () => {
    const prisma = stack.db.prisma;
    const [counts] = await prisma.$queryRawUnsafe<{ observations: number; contents: number; texts: number }[]>(
      'SELECT (SELECT count(*)::int FROM observations) AS observations, (SELECT count(*)::int FROM product_contents) AS contents, (SELECT count(*)::int FROM observation_texts) AS texts',
    );
    expect(counts!.observations).toBe(reads.length);
    expect(counts!.contents).toBe(reads.length);
    expect(counts!.texts).toBeLessThanOrEqual(reads.length);
  });
});
