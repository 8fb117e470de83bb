/**
 * The migration of observations from the wide layout (one row per read holding the whole Product)
 * to the partitioned layout (volatile row + content version + texts), on PGlite and PostgreSQL: a
 * database migrated up to the version before holds observations written with that version's SQL,
 * tasks and a subscription pointing at them; the migrator then runs the backfill in batches,
 * stopped after two batches (progress row), on PostgreSQL killed inside the next one (its
 * transaction rolled back), and run again until done. Every observation is then
 * read back through REST history, task_get, the history export, monitoring/list and GraphQL and
 * compared byte for byte with what the version before answered for it (its decoder of the wide
 * row: `legacyProduct`). A later read of the same page stores no new content version.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { MIGRATIONS_DIR, applyMigrations, listMigrations } from '../../core/db/migrator.js';
import { legacyConversion } from '../../core/db/observation-backfill.js';
import { storeObservation } from '../../core/observations.js';
import { version1Fields, type Bsr, type Product, type Variant } from '../../core/product.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { GRAPHQL_PRODUCT_FIELDS, graphqlProductOf } from '../support/observations.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MIGRATION = '20261127100000_observations_partitioned';

/** The observations written by the version before, as Products (their v2 fields are not stored). */
function legacyInputs(): Product[] {
  const full = (observedAt: string, price: number, rank: number): Product => ({
    asin: 'B0MIGR0001', marketplace: 'com', url: 'https://www.amazon.com/dp/B0MIGR0001', observed_at: observedAt, status: 'ok',
    title: 'Kaffeemühle „Ünïcödé“ – 日本語 ✨', byline: ['Brand: Zassenhaus', 'Visit the Store'], variant: 'Schwarz',
    variants: [{ name: 'Schwarz', asin: 'B0MIGR0001' }, { name: 'Weiß', asin: 'B0MIGR0002' }],
    price: { amount: price, currency: 'USD' },
    bsr: { rank, category: 'Home & Kitchen', subcategories: [{ rank: 3, category: 'Manual Coffee Grinders' }, { rank: 17, category: 'Grinders' }] },
    rating: 4.6, ratings_count: 1234, image_url: 'https://m.media-amazon.com/images/I/61abc.jpg',
    details: { 'Product Dimensions': '5 x 5 x 20 cm', Brand: 'Zassenhaus', 'ASIN': 'B0MIGR0001', Größe: 'M' },
    parser_version: 'p-1.4.0', ...version1Fields(),
  });
  return [
    full('2025-06-03T10:00:00.000Z', 39.99, 1500),
    full('2026-01-15T08:30:00.123Z', 37.5, 1400),
    full('2026-01-15T08:30:00.123Z', 37.5, 1400), // same instant: ties newest id first
    full(new Date(Date.now() - 3_600_000).toISOString(), 35, 1200),
    {
      asin: 'B0MIGR0003', marketplace: 'de', url: 'https://www.amazon.de/dp/B0MIGR0003', observed_at: '2026-01-20T12:00:00.000Z', status: 'no_bsr',
      title: 'Buch', byline: [], variant: null, variants: [], price: { amount: 12.99, currency: 'EUR' }, bsr: null, rating: null, ratings_count: null,
      image_url: null, details: {}, parser_version: 'p-1.4.0', ...version1Fields(),
    },
    {
      asin: 'B0MIGR0004', marketplace: 'com', url: 'https://www.amazon.com/dp/B0MIGR0004', observed_at: '2026-01-21T12:00:00.000Z', status: 'not_found',
      title: null, byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null,
      image_url: null, details: {}, parser_version: 'p-1.4.0', ...version1Fields(),
    },
  ];
}

/** The version before's INSERT of an observation (its `rowFromProduct` through Prisma). */
async function insertLegacy(client: pg.Client, p: Product, subscriptionId: number | null): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO observations (asin, marketplace, observed_at, status, url, title, byline, variant, variants, price_amount, price_currency,
       bsr, bsr_rank, rating, ratings_count, image_url, details, parser_version, subscription_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10::numeric, $11, $12::jsonb, $13, $14::numeric, $15, $16, $17::jsonb, $18, $19)
     RETURNING id::text AS id`,
    [p.asin, p.marketplace, p.observed_at, p.status, p.url, p.title, JSON.stringify(p.byline), p.variant, JSON.stringify(p.variants),
      p.price ? String(p.price.amount) : null, p.price?.currency ?? null, p.bsr ? JSON.stringify(p.bsr) : null, p.bsr?.rank ?? null,
      p.rating === null ? null : String(p.rating), p.ratings_count, p.image_url, JSON.stringify(p.details), p.parser_version, subscriptionId],
  );
  return rows[0]!.id;
}

/** The version before's decoder of a wide row rendered by `to_jsonb` (its `productFromJson`). */
function legacyProduct(o: Record<string, any>): Product {
  return {
    asin: o.asin, marketplace: o.marketplace, url: o.url, observed_at: new Date(o.observed_at).toISOString(), status: o.status,
    title: o.title, byline: (o.byline as string[] | null) ?? [], variant: o.variant, variants: (o.variants as Variant[] | null) ?? [],
    price: o.price_amount !== null && o.price_currency ? { amount: o.price_amount, currency: o.price_currency } : null,
    bsr: (o.bsr as Bsr | null) ?? null, rating: o.rating, ratings_count: o.ratings_count, image_url: o.image_url,
    details: (o.details as Record<string, string> | null) ?? {}, parser_version: o.parser_version, ...version1Fields(),
  };
}

const postgresPrerequisite = await postgres();

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `observation layout migration on ${database}`, () => {
    let app: TestApp;
    let client: pg.Client;
    let rest: ApiClient;
    let gql: ReturnType<TestApp['gql']>;
    let before: string;
    /** Legacy id → the Product the version before answered for it. */
    const answered = new Map<string, Product>();
    const taskIds = new Map<string, string>();
    let subscriptionId: number;
    let latestId: string;

    beforeAll(async () => {
      app = await startTestApp({ database, migrate: false });
      before = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-mig-before-'));
      for (const m of listMigrations().filter((m) => m.name < MIGRATION)) fs.cpSync(path.join(MIGRATIONS_DIR, m.name), path.join(before, m.name), { recursive: true });
      fs.copyFileSync(path.join(MIGRATIONS_DIR, 'migration_lock.toml'), path.join(before, 'migration_lock.toml'));
      await applyMigrations(app.dbUrl, before);
      client = new pg.Client({ connectionString: app.dbUrl });
      await client.connect();

      const created = await createAccount(app.db, { login: 'migrator', email: 'migrator@example.com', balance: 10 });
      rest = apiClient(app.url, { login: created.login, key: created.api_key });
      gql = app.gql({ key: created.api_key });
      // The database is at the schema before the migration: rows are written in its columns, not the client's.
      subscriptionId = (await client.query<{ id: number }>(
        `INSERT INTO subscriptions (account_id, asin, marketplace, frequency) VALUES ($1, 'B0MIGR0001', 'com', 'daily') RETURNING id`, [created.id],
      )).rows[0]!.id;
      const inputs = legacyInputs();
      const ids: string[] = [];
      for (const [i, p] of inputs.entries()) ids.push(await insertLegacy(client, p, p.asin === 'B0MIGR0001' && i > 0 ? subscriptionId : null));
      latestId = ids[3]!;
      await client.query('UPDATE subscriptions SET latest_observation_id = $1 WHERE id = $2', [latestId, subscriptionId]);
      for (const [i, id] of ids.entries()) {
        const taskId = `11250000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        const ok = inputs[i]!.status !== 'not_found';
        await client.query(
          `INSERT INTO tasks (id, account_id, endpoint, asin, marketplace, data, state, status_code, status_message, observation_id, completed_at, expires_at)
           VALUES ($1, $2, 'task_post', $3, $4, '{}', $5, $6, $7, $8, now(), now() + interval '1 day')`,
          [taskId, created.id, inputs[i]!.asin, inputs[i]!.marketplace, ok ? 'completed' : 'failed', ok ? 20000 : 40402, ok ? 'Ok.' : 'Product not found.', id],
        );
        taskIds.set(id, taskId);
      }
      const { rows } = await client.query<{ o: Record<string, unknown> }>('SELECT to_jsonb(o) || jsonb_build_object(\'id\', o.id::text) AS o FROM observations o ORDER BY id');
      for (const { o } of rows) answered.set(o.id as string, legacyProduct(o));
    }, 120_000);

    afterAll(async () => {
      await client?.end();
      await app?.close();
      if (before) fs.rmSync(before, { recursive: true, force: true });
    });

    it('the backfill runs in batches under the migrator, stops (or is killed inside a batch), and goes on from its progress row', async () => {
      expect(await applyMigrations(app.dbUrl, MIGRATIONS_DIR, { backfill: { batchSize: 2, maxBatches: 2 } })).toEqual(listMigrations().filter((m) => m.name >= MIGRATION).map((m) => m.name));
      const progress = await client.query('SELECT last_id::text, copied::int FROM observation_backfill');
      expect(progress.rows).toEqual([{ last_id: [...answered.keys()][3], copied: 4 }]);
      expect((await client.query('SELECT count(*)::int AS n FROM observations')).rows[0].n).toBe(4);
      expect((await client.query('SELECT count(*)::int AS n FROM observations_legacy')).rows[0].n).toBe(answered.size);

      if (database === 'postgres') {
        // A run killed inside a batch: its transaction is rolled back, the progress row unchanged.
        const victim = new pg.Client({ connectionString: app.dbUrl });
        await victim.connect();
        victim.on('error', () => {});
        const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const batch = legacyConversion('SELECT * FROM observations_legacy WHERE id > $1::bigint ORDER BY id LIMIT $2::int');
        await victim.query('BEGIN');
        await victim.query(batch.docs, [progress.rows[0].last_id, 2]);
        await victim.query(batch.rows, [progress.rows[0].last_id, 2]);
        await client.query('SELECT pg_terminate_backend($1)', [pid]);
        await victim.end().catch(() => {});
        expect((await client.query('SELECT last_id::text, copied::int FROM observation_backfill')).rows).toEqual(progress.rows);
        expect((await client.query('SELECT count(*)::int AS n FROM observations')).rows[0].n).toBe(4);
      }
      expect(await applyMigrations(app.dbUrl)).toEqual([]);
      const tables = await client.query(`SELECT to_regclass('observations_legacy') AS legacy, to_regclass('observation_backfill') AS progress`);
      expect(tables.rows[0]).toEqual({ legacy: null, progress: null });
      const stored = await client.query('SELECT id::text FROM observations ORDER BY id');
      expect(stored.rows.map((r) => r.id)).toEqual([...answered.keys()]);
      // Three reads of B0MIGR0001 with one content: one version; the others one each.
      expect((await client.query('SELECT asin, count(*)::int AS n FROM product_contents GROUP BY asin ORDER BY asin')).rows)
        .toEqual([{ asin: 'B0MIGR0001', n: 1 }, { asin: 'B0MIGR0003', n: 1 }, { asin: 'B0MIGR0004', n: 1 }]);
      // The old months got partitions: the rows left the DEFAULT partition.
      expect((await client.query('SELECT count(*)::int AS n FROM observations_default')).rows[0].n).toBe(0);
      expect((await client.query(`SELECT to_regclass('observations_2025_06') IS NOT NULL AS ok`)).rows[0].ok).toBe(true);
    });

    it('history, task_get, the export, monitoring/list and GraphQL answer byte for byte what the version before answered', async () => {
      const legacy = [...answered.entries()];
      for (const [asin, marketplace] of [['B0MIGR0001', 'com'], ['B0MIGR0003', 'de'], ['B0MIGR0004', 'com']] as const) {
        const expected = legacy.filter(([, p]) => p.asin === asin)
          .sort(([ia, a], [ib, b]) => Date.parse(b.observed_at) - Date.parse(a.observed_at) || Number(BigInt(ib) - BigInt(ia)))
          .map(([, p]) => p);
        const history = await rest.post('/v1/retail/product/history', [{ asin, marketplace }]);
        expect(history.status).toBe(200);
        expect(JSON.stringify(history.body.tasks[0].result)).toBe(JSON.stringify(expected));

        const exported = await rest.get(`/v1/retail/product/history/export?asin=${asin}&marketplace=${marketplace}`);
        expect(exported.status).toBe(200);
        const lines = typeof exported.body === 'string' ? exported.body.trimEnd().split('\n') : [JSON.stringify(exported.body)];
        expect(lines).toEqual(expected.map((p) => JSON.stringify(p)));

        const graph = await gql(`query($asin: String!, $marketplace: String!) { productHistory(asin: $asin, marketplace: $marketplace) { products { ${GRAPHQL_PRODUCT_FIELDS} } } }`, { asin, marketplace });
        expect(graph.body.errors).toBeUndefined();
        expect(JSON.stringify(graph.body.data.productHistory.products)).toBe(JSON.stringify(expected.map(graphqlProductOf)));
      }
      for (const [id, product] of legacy) {
        const res = await rest.get(`/v1/retail/product/task_get/${taskIds.get(id)}`);
        const task = res.body.tasks[0];
        if (product.status === 'not_found') {
          expect(task.status_code).toBe(40402);
          continue;
        }
        expect(JSON.stringify(task.result[0])).toBe(JSON.stringify(product));
        const graph = await gql(`query($id: ID!) { task(id: $id) { product { ${GRAPHQL_PRODUCT_FIELDS} } } }`, { id: taskIds.get(id) });
        expect(JSON.stringify(graph.body.data.task.product)).toBe(JSON.stringify(graphqlProductOf(product)));
      }
      const list = await rest.get('/v1/retail/monitoring/list');
      expect(JSON.stringify(list.body.tasks[0].result[0].latest_observation)).toBe(JSON.stringify(answered.get(latestId)));
      const subs = await gql(`{ subscriptions { edges { node { latestObservation { ${GRAPHQL_PRODUCT_FIELDS} } observations(first: 10) { edges { node { id product { title } } } } } } } }`);
      expect(subs.body.errors).toBeUndefined();
      const node = subs.body.data.subscriptions.edges[0].node;
      expect(JSON.stringify(node.latestObservation)).toBe(JSON.stringify(graphqlProductOf(answered.get(latestId)!)));
      expect(node.observations.edges.map((e: any) => e.node.id)).toEqual(legacy.filter(([id, p]) => p.asin === 'B0MIGR0001' && id !== legacy[0]![0])
        .sort(([ia, a], [ib, b]) => Date.parse(b.observed_at) - Date.parse(a.observed_at) || Number(BigInt(ib) - BigInt(ia))).map(([id]) => id));
    });

    it('a later read of the same page stores no new content version, and its id follows the old ones', async () => {
      const same = { ...legacyInputs()[0]!, observed_at: new Date().toISOString(), price: { amount: 33, currency: 'USD' } };
      const id = await storeObservation(app.db, same);
      expect(id).toBeGreaterThan(BigInt([...answered.keys()].at(-1)!));
      expect((await client.query(`SELECT count(*)::int AS n FROM product_contents WHERE asin = 'B0MIGR0001'`)).rows[0].n).toBe(1);
      expect((await client.query('SELECT count(*)::int AS n FROM observation_texts')).rows[0].n).toBe(1);
    });
  });
}
