/**
 * GET /v1/appendix/status (api-spec.md "Appendix endpoints", "Other result objects": status per
 * marketplace) over HTTP against buildApp on PGlite: source reads and tasks seeded through Prisma,
 * the 24-hour aggregates and the classification per marketplace, optional authentication and
 * metering, the same answer through GraphQL, and the pruning of old source reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { newTaskId } from '../../core/ids.js';
import { MARKETPLACE_CODES } from '../../core/marketplaces.js';
import { pruneSourceReads, type SourceReadOutcome } from '../../core/source-reads.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiClient } from '../support/http.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let app: TestApp;
let accountId: number;

/** `count` source reads of `marketplace` with `outcome`, read `agoMs` before now. */
async function reads(marketplace: string, outcome: SourceReadOutcome, count: number, agoMs = HOUR) {
  const readAt = new Date(Date.now() - agoMs);
  await app.prisma.sourceRead.createMany({ data: Array.from({ length: count }, () => ({ marketplace, outcome, readAt, durationMs: 1200 })) });
}

/** A task of `marketplace` created `minutes` before it finished, finished `agoMs` before now (never finished when `state` is queued/running). */
async function task(marketplace: string, options: { state: string; minutes?: number; agoMs?: number; endpoint?: string; priority?: number }) {
  const completedAt = ['completed', 'failed'].includes(options.state) ? new Date(Date.now() - (options.agoMs ?? HOUR)) : null;
  const createdAt = new Date((completedAt?.getTime() ?? Date.now()) - (options.minutes ?? 0) * MINUTE);
  await app.prisma.task.create({
    data: {
      id: newTaskId(createdAt), accountId, endpoint: options.endpoint ?? 'task_post', asin: 'B07CL39Z8Q', marketplace,
      priority: options.priority ?? 1, data: {}, state: options.state, createdAt, completedAt, expiresAt: new Date(Date.now() + 30 * 24 * HOUR),
    },
  });
}

beforeAll(async () => {
  app = await startTestApp({ database: 'pglite' });
  accountId = (await createAccount(app.db, { login: 'seed', email: 'seed@example.com', balance: 0 })).id;
  // com: 99 of 100 reads succeed (ok, no_bsr and not_found all count) → operational.
  await reads('com', 'ok', 90);
  await reads('com', 'no_bsr', 5);
  await reads('com', 'not_found', 4);
  await reads('com', 'blocked', 1);
  // de: 70 of 100 → degraded.
  await reads('de', 'ok', 70);
  await reads('de', 'blocked', 20);
  await reads('de', 'unavailable', 10);
  // fr: 20 blocked in 24 h; 50 good reads 25 hours ago do not count → unavailable.
  await reads('fr', 'blocked', 20);
  await reads('fr', 'ok', 50, 25 * HOUR);
  // jp: 3 reads → not enough data.
  await reads('jp', 'ok', 3);
  // uk: every read succeeds but tasks take 45 minutes → degraded.
  await reads('uk', 'ok', 20);
  // Older than the 7-day retention (pruned below), and outside the window anyway.
  await reads('it', 'ok', 30, 8 * 24 * HOUR);

  // com: completed task_post tasks of 2, 4 and 6 minutes → median 4; what must not count: a task
  // completed 25 hours ago, a failed task, a completed live task.
  for (const minutes of [2, 4, 6]) await task('com', { state: 'completed', minutes });
  await task('com', { state: 'completed', minutes: 100, agoMs: 25 * HOUR });
  await task('com', { state: 'failed', minutes: 100 });
  await task('com', { state: 'completed', minutes: 100, endpoint: 'live' });
  // de: median of 1 and 2 minutes = 1.5.
  for (const minutes of [1, 2]) await task('de', { state: 'completed', minutes });
  await task('uk', { state: 'completed', minutes: 45 });
  // Queued collection jobs: queued and running tasks of any endpoint.
  await task('com', { state: 'queued' });
  await task('com', { state: 'queued', priority: 2 });
  await task('com', { state: 'running', endpoint: 'live' });
  await task('fr', { state: 'queued' });
});

afterAll(async () => {
  await app?.close();
});

const row = (marketplace: string, fields: Record<string, unknown>) => ({
  marketplace, available: null, status: 'unknown', success_rate_24h: null, source_reads_24h: 0, median_completion_minutes_24h: null, queued_jobs: 0, search_reads_24h: 0, search_success_rate_24h: null, ...fields,
});

const expected = [
  row('com', { available: true, status: 'operational', success_rate_24h: 0.99, source_reads_24h: 100, median_completion_minutes_24h: 4, queued_jobs: 3 }),
  row('uk', { available: true, status: 'degraded', success_rate_24h: 1, source_reads_24h: 20, median_completion_minutes_24h: 45 }),
  row('de', { available: true, status: 'degraded', success_rate_24h: 0.7, source_reads_24h: 100, median_completion_minutes_24h: 1.5 }),
  row('fr', { available: false, status: 'unavailable', success_rate_24h: 0, source_reads_24h: 20, queued_jobs: 1 }),
  row('it', {}),
  row('es', {}),
  row('ca', {}),
  row('jp', { success_rate_24h: 1, source_reads_24h: 3 }),
  row('in', {}),
  row('mx', {}),
  row('br', {}),
  row('au', {}),
];

describe('GET /v1/appendix/status', () => {
  it('answers one row per marketplace, in marketplace order, without a key', async () => {
    const res = await apiClient(app.url).get('/v1/appendix/status');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 20000, tasks_count: 1, tasks_error: 0, cost: 0 });
    const t = res.body.tasks[0];
    expect(t).toMatchObject({ status_code: 20000, path: ['v1', 'appendix', 'status'], data: { api: 'appendix', function: 'status' }, cost: 0, result_count: 12 });
    expect(t.result.map((r: any) => r.marketplace)).toEqual([...MARKETPLACE_CODES]);
    expect(t.result).toEqual(expected);
  });

  it('a valid key is checked and metered (free); a bad key is 401 / 40100', async () => {
    const { api_key } = await createAccount(app.db, { login: 'status1', email: 's1@example.com', balance: 1 });
    const api = apiClient(app.url, { key: api_key });
    const res = await api.get('/v1/appendix/status');
    expect(res.status).toBe(200);
    expect(res.body.tasks[0].result).toEqual(expected);
    const usage = (await api.get('/v1/appendix/usage')).body.tasks[0].result[0];
    expect(usage.endpoints).toEqual([{ endpoint: 'status', requests: 1, tasks: 1, cost: 0 }]);
    const bad = await apiClient(app.url, { key: 'rda_live_nope' }).get('/v1/appendix/status');
    expect(bad.status).toBe(401);
    expect(bad.body.status_code).toBe(40100);
  });

  it('GraphQL `status` gives the same answer', async () => {
    const res = await app.gql()('{ status { marketplace { code } available status successRate24h sourceReads24h medianCompletionMinutes24h queuedJobs } }');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toEqual(expected.map((r) => ({
      marketplace: { code: r.marketplace }, available: r.available, status: r.status, successRate24h: r.success_rate_24h,
      sourceReads24h: r.source_reads_24h, medianCompletionMinutes24h: r.median_completion_minutes_24h, queuedJobs: r.queued_jobs,
    })));
  });

  it('old source reads are pruned after 7 days; reads inside the retention stay', async () => {
    const count = async (marketplace: string) => app.prisma.sourceRead.count({ where: { marketplace } });
    expect([await count('it'), await count('fr')]).toEqual([30, 70]);
    expect(await pruneSourceReads(app.db)).toBe(30);
    expect([await count('it'), await count('fr')]).toEqual([0, 70]);
  });
});
