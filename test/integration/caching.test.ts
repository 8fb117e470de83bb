/**
 * The unauthenticated aggregates cost one computation per interval, whatever the callers, and
 * /metrics is never public on the API port. On an embedded PostgreSQL (PGlite) reached through a
 * database handle that records every SQL statement it sends (test/support/test-app.ts
 * `countingDb`), so computations are counted as the statements the database received:
 *
 * - marketplace status (REST GET /v1/appendix/status and GraphQL `status`, aliased 100×, from
 *   many concurrent callers): one computation (its three statements) per STATUS_CACHE_MS;
 * - /metrics: 404 without METRICS_TOKEN / METRICS_LISTEN (and a warning), 401 without the Bearer
 *   token, 200 with it; its tasks-by-state gauge is one statement per DB_GAUGE_CACHE_MS whatever
 *   the scrapers; with METRICS_LISTEN (the real `startApiServer`, on a Temporal dev server) it is
 *   served on that address and not on the API port; a listener of its own honours the token too.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApiServer, type ApiServer } from '../../api/server.js';
import { STATUS_CACHE_MS } from '../../api/services/status.js';
import { loadConfig } from '../../core/config.js';
import { DB_GAUGE_CACHE_MS } from '../../core/metrics.js';
import { startMetricsServer } from '../../core/metrics-server.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/temporal/dev-server.js';
import { gqlClient } from '../support/graphql.js';
import { countingDb, startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

const TOKEN = 'metrics-test-token-0123456789';

let counting: ReturnType<typeof countingDb>;
/** The app on the counting client, /metrics behind TOKEN on its port. It is built first, so the tasks gauge reads through the counting client. */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ dbFor: (url) => (counting = countingDb(url)), env: { METRICS_TOKEN: TOKEN } });
});

afterAll(async () => {
  await app?.close();
});

afterEach(() => {
  vi.useRealTimers();
});

/** The statements sent while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = counting.statements.length;
  await work();
  return counting.statements.slice(before);
}

async function seedReads(marketplace: string, count: number) {
  await counting.prisma.sourceRead.createMany({ data: Array.from({ length: count }, () => ({ marketplace, outcome: 'ok', readAt: new Date(Date.now() - 60_000), durationMs: 900 })) });
}

describe('marketplace status', () => {
  const aliased = `{ ${Array.from({ length: 100 }, (_, i) => `s${i}: status { marketplace { code } sourceReads24h }`).join(' ')} }`;

  /** 100 aliases in one GraphQL request, 50 REST and 50 GraphQL callers at once: the source reads of `marketplace` in every answer. */
  async function burst(marketplace: string): Promise<number[]> {
    const rest = apiClient(app.url);
    const gql = gqlClient(app.url);
    const [aliases, graphql, envelopes] = await Promise.all([
      gql(aliased),
      Promise.all(Array.from({ length: 50 }, () => gql('{ status { marketplace { code } sourceReads24h } }'))),
      Promise.all(Array.from({ length: 50 }, () => rest.get('/v1/appendix/status'))),
    ]);
    const graphqlReads = (rows: { marketplace: { code: string }; sourceReads24h: number }[]) => rows.find((r) => r.marketplace.code === marketplace)!.sourceReads24h;
    return [
      ...Object.values(aliases.body.data).map((rows) => graphqlReads(rows as never)),
      ...graphql.map((res) => graphqlReads(res.body.data.status)),
      ...envelopes.map((res) => (res.body.tasks[0].result as { marketplace: string; source_reads_24h: number }[]).find((r) => r.marketplace === marketplace)!.source_reads_24h),
    ];
  }

  it('status aliased 100× and 100 concurrent callers: one computation (three statements) per interval', async () => {
    await seedReads('de', 12);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    let reads: number[] = [];
    const first = await statementsOf(async () => { reads = await burst('de'); });
    expect(reads).toHaveLength(200);
    expect(new Set(reads)).toEqual(new Set([12]));
    expect(first.filter((s) => /source_reads/.test(s))).toHaveLength(1);
    expect(first.filter((s) => /percentile_cont/.test(s))).toHaveLength(1);
    expect(first, first.join('\n---\n')).toHaveLength(3);

    // Within the interval, nothing more is computed (new reads show at the next interval).
    await seedReads('de', 5);
    vi.setSystemTime(Date.now() + STATUS_CACHE_MS - 1_000);
    expect(await statementsOf(async () => { reads = await burst('de'); })).toEqual([]);
    expect(new Set(reads)).toEqual(new Set([12]));

    // The next interval: one computation again, with the new reads.
    vi.setSystemTime(Date.now() + 1_001);
    const next = await statementsOf(async () => { reads = await burst('de'); });
    expect(next).toHaveLength(3);
    expect(new Set(reads)).toEqual(new Set([17]));
  });
});

describe('/metrics', () => {
  const scrape = (base: string, token?: string) => fetch(`${base}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

  it('on the API port with METRICS_TOKEN: 401 / 40100 without the Bearer token or with another, 200 with it; 20 scrapes at once read the tasks once', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * DB_GAUGE_CACHE_MS });
    let answers: Response[] = [];
    const statements = await statementsOf(async () => { answers = await Promise.all(Array.from({ length: 20 }, () => scrape(app.url, TOKEN))); });
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await answers[0]!.text()).toContain('# TYPE retail_tasks gauge');
    expect(statements, statements.join('\n---\n')).toHaveLength(1);
    expect(statements[0]).toMatch(/GROUP BY/i);

    for (const res of [await scrape(app.url), await scrape(app.url, 'not-the-token'), await fetch(`${app.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } })]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await res.json()).status_code).toBe(40100);
    }
  });

  it('without METRICS_TOKEN and METRICS_LISTEN the API port answers 404 and a warning says why', async () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    const noMetrics = await app.another({ env: {}, logger: pino({ level: 'warn' }, sink) });
    try {
      for (const token of [undefined, TOKEN]) {
        const res = await scrape(noMetrics.url, token);
        expect(res.status).toBe(404);
        expect((await res.json()).status_code).toBe(40400);
      }
      expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringMatching(/\/metrics is not served: set METRICS_TOKEN .* or METRICS_LISTEN/) }));
    } finally {
      await noMetrics.close();
    }
  });

  describe('with METRICS_LISTEN (startApiServer)', () => {
    let temporal: TemporalDevServer;
    let api: ApiServer;

    beforeAll(async () => {
      temporal = await startTemporalDevServer({ uiPort: false, logFile: path.join(app.dataDir, 'temporal.log') });
      const config = loadConfig({ DATA_DIR: app.dataDir, PORT: '0', METRICS_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'silent' });
      api = await startApiServer({ config, db: counting, temporalAddress: temporal.address, logger: pino({ level: 'silent' }) });
    }, 120_000);

    afterAll(async () => {
      await api?.stop();
      await temporal?.stop();
    });

    it('serves /metrics on that address only: the API port answers 404', async () => {
      expect(api.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(api.metricsUrl).not.toBe(api.url);
      const res = await scrape(api.metricsUrl!);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('retail_http_requests_total');
      for (const token of [undefined, TOKEN]) expect((await scrape(api.url, token)).status).toBe(404);
    });
  });

  it('a listener of its own (METRICS_LISTEN, a standalone worker\'s WORKER_METRICS_PORT) requires the Bearer METRICS_TOKEN when it is set', async () => {
    const listener = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN, logger: pino({ level: 'silent' }) });
    try {
      expect((await scrape(listener.url)).status).toBe(401);
      expect((await scrape(listener.url, 'nope')).status).toBe(401);
      const ok = await scrape(listener.url, TOKEN);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('process_cpu_seconds_total');
    } finally {
      await listener.stop();
    }
  });
});
