/**
 * The stored observation layout on PGlite and PostgreSQL: every version 2 field is stored and read
 * back (history, task_get, the export agree byte for byte and equal the Product stored); the
 * content of a product is stored once per distinct version and the short texts once per
 * combination; rows outside the monthly partitions land in the DEFAULT partition and move into
 * their month's partition when it is created; OBSERVATION_RETENTION_DAYS drops whole partitions
 * (and nothing else), RETENTION_DAYS alone never touches observations.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { listObservationPartitions } from '../../core/db/observation-partitions.js';
import { prismaQueryable } from '../../core/db/prisma.js';
import { storeObservation } from '../../core/observations.js';
import { version1Fields, type Product } from '../../core/product.js';
import { purgeExpiredData } from '../../core/retention.js';
import { apiClient, type ApiClient } from '../support/http.js';
import { withVersion2Fields } from '../support/observations.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY_MS = 86_400_000;

/** A version 1 product page read at `at`. */
function page(asin: string, at: Date, price = 24.99): Product {
  return {
    asin, marketplace: 'de', url: `https://www.amazon.de/dp/${asin}`, observed_at: at.toISOString(), status: 'ok',
    title: 'Backform „Ünïcödé“ 26 cm', byline: ['Marke: Kaiser'], variant: '26 cm', variants: [{ name: '26 cm', asin }, { name: '28 cm', asin: 'B0STORE999' }],
    price: { amount: price, currency: 'EUR' }, bsr: { rank: 812, category: 'Küche, Haushalt & Wohnen', subcategories: [{ rank: 4, category: 'Springformen' }] },
    rating: 4.5, ratings_count: 3021, image_url: 'https://m.media-amazon.com/images/I/71abc.jpg',
    details: { Marke: 'Kaiser', Material: 'Stahl', 'Im Angebot seit': '3. März 2019' }, parser_version: 'test-2', ...version1Fields(),
  };
}

const postgresPrerequisite = await postgres();

for (const database of ['pglite', 'postgres'] as const) {
  describeNeeding(database === 'postgres' ? [postgresPrerequisite] : [], `observation storage on ${database}`, () => {
    let app: TestApp;
    let rest: ApiClient;
    let accountId: number;

    beforeAll(async () => {
      app = await startTestApp({ database });
      const created = await createAccount(app.db, { login: 'keeper', email: 'keeper@example.com', balance: 10 });
      accountId = created.id;
      rest = apiClient(app.url, { login: created.login, key: created.api_key });
    }, 120_000);

    afterAll(async () => {
      await app?.close();
    });

    const count = async (table: string, where = 'true') =>
      (await app.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;

    it('stores every version 2 field and reads it back through history, task_get and the export, byte for byte alike', async () => {
      const t0 = Date.now() - 10 * 3_600_000;
      const stored = Array.from({ length: 6 }, (_, i) => withVersion2Fields(page('B0STORE001', new Date(t0 + i * 3_600_000), 24.99 - i), i));
      const ids: bigint[] = [];
      for (const p of stored) ids.push(await storeObservation(app.db, p));
      const taskIds = await Promise.all(ids.map(async (observationId, i) => {
        const id = `11250000-0000-4000-8000-1000000000${String(i).padStart(2, '0')}`;
        await app.prisma.task.create({
          data: {
            id, accountId, endpoint: 'task_post', asin: 'B0STORE001', marketplace: 'de', data: {}, state: 'completed', statusCode: 20000,
            statusMessage: 'Ok.', observationId, completedAt: new Date(), expiresAt: new Date(Date.now() + DAY_MS),
          },
        });
        return id;
      }));

      const history = (await rest.post('/v1/retail/product/history', [{ asin: 'B0STORE001', marketplace: 'de' }])).body.tasks[0].result as Product[];
      const newestFirst = [...stored].reverse();
      expect(history).toEqual(newestFirst);
      const exported = (await rest.get('/v1/retail/product/history/export?asin=B0STORE001&marketplace=de')).body as string;
      expect(exported.trimEnd().split('\n')).toEqual(history.map((p) => JSON.stringify(p)));
      for (const [i, taskId] of taskIds.entries()) {
        const answer = (await rest.get(`/v1/retail/product/task_get/${taskId}`)).body.tasks[0].result[0];
        expect(JSON.stringify(answer)).toBe(JSON.stringify(history[stored.length - 1 - i]));
      }
      // One content version for six reads; the texts vary with the seed (availability, coupon).
      expect(await count('product_contents', `asin = 'B0STORE001'`)).toBe(1);
      expect(await count('observation_texts')).toBeLessThanOrEqual(4);
      // A changed title is a new content version; the same title again reuses the first.
      await storeObservation(app.db, { ...withVersion2Fields(page('B0STORE001', new Date()), 0), title: 'Neuer Titel' });
      await storeObservation(app.db, withVersion2Fields(page('B0STORE001', new Date()), 0));
      expect(await count('product_contents', `asin = 'B0STORE001'`)).toBe(2);
    });

    it('rows outside every monthly partition wait in the DEFAULT partition and move into their month once it is created', async () => {
      const old = new Date('2019-03-15T12:00:00Z');
      const id = await storeObservation(app.db, page('B0STORE002', old));
      expect(await count('observations_default', `id = ${id}`)).toBe(1);
      await purgeExpiredData(app.db, { retentionDays: 30 });
      expect(await count('observations_default')).toBe(0);
      expect(await count('observations_2019_03', `id = ${id}`)).toBe(1);
      expect((await rest.post('/v1/retail/product/history', [{ asin: 'B0STORE002', marketplace: 'de' }])).body.tasks[0].result).toEqual([page('B0STORE002', old)]);
    });

    it('OBSERVATION_RETENTION_DAYS drops the partitions wholly older than it; RETENTION_DAYS alone keeps every observation', async () => {
      const now = new Date();
      const ages = [400, 100, 40, 1];
      for (const days of ages) await storeObservation(app.db, page('B0STORE003', new Date(now.getTime() - days * DAY_MS)));
      const history = async () => ((await rest.post('/v1/retail/product/history', [{ asin: 'B0STORE003', marketplace: 'de' }])).body.tasks[0].result as Product[]).length;

      const kept = await purgeExpiredData(app.db, { retentionDays: 1 });
      expect(kept.observationPartitions).toEqual([]);
      expect(await history()).toBe(4);

      const partitionsBefore = await listObservationPartitions(prismaQueryable(app.prisma));
      const report = await purgeExpiredData(app.db, { retentionDays: 30, observationRetentionDays: 90, now });
      const cutoff = now.getTime() - 90 * DAY_MS;
      const monthEnd = (name: string) => { const [y, m] = name.slice(13).split('_').map(Number); return Date.UTC(y!, m!, 1); };
      expect(report.observationPartitions).toEqual(partitionsBefore.filter((name) => monthEnd(name) <= cutoff));
      expect(report.observationPartitions).toContain('observations_2019_03');
      expect(await listObservationPartitions(prismaQueryable(app.prisma))).toEqual(partitionsBefore.filter((name) => monthEnd(name) > cutoff));
      // The 400- and 100-day-old reads went with their months (100 days may share a month with the cutoff: then it stays).
      const left = await history();
      const expected = ages.filter((days) => monthEnd(`observations_${new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 7).replace('-', '_')}`) > cutoff).length;
      expect(left).toBe(expected);
      expect(left).toBeLessThan(4);
      expect(await count('observations_default')).toBe(0);
    });
  });
}
