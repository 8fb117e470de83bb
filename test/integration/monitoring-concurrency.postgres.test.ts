/**
 * The monitoring rules of core/subscriptions.ts and core/monitoring-runs.ts under real concurrency,
 * on the real PostgreSQL (a pool of 10 connections; PGlite runs one query at a time): concurrent
 * adds never exceed 10,000 subscriptions per account, concurrent deliveries (monitors recorded
 * before reservations) and concurrent run reservations charge exactly what the balance covers and
 * pause the account once, and a reservation retried while the first attempt still runs charges once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, topUp } from '../../api/admin/accounts.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createDb, type Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import { version1Fields, type Product } from '../../core/product.js';
import { addSubscriptions, deliverObservation, MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../../core/subscriptions.js';
import { refundMonitoringRun, startMonitoringRun, storeMonitoringObservation } from '../../core/monitoring-runs.js';
import { createScratchDatabase } from '../support/env.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const PRICE = PLANS.standard!.rates.monitoring;
let scratch: { url: string; drop(): Promise<void> };
let db: Db;
let prisma: PrismaClient;

function product(asin: string): Product {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date().toISOString(), status: 'ok', title: 'T',
    byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test', ...version1Fields(),
  };
}

const postgresPrerequisite = await postgres();

beforeAll(async () => {
  if (postgresPrerequisite.missing) return;
  scratch = await createScratchDatabase();
  await applyMigrations(scratch.url);
  db = createDb(scratch.url, 10);
  prisma = db.prisma;
});

afterAll(async () => {
  await db?.close();
  await scratch?.drop();
});

describeNeeding([postgresPrerequisite], 'monitoring rules under concurrency (PostgreSQL)', () => {
  it('concurrent adds stop at exactly 10,000 subscriptions per account', async () => {
    const { id } = await createAccount(db, { login: 'crowded', email: 'c@example.com', balance: 1 });
    await prisma.subscription.createMany({
      data: Array.from({ length: MAX_SUBSCRIPTIONS_PER_ACCOUNT - 10 }, (_, i) => ({ accountId: id, asin: `S${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'daily' })),
    });
    const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 10 }, (_, i) => ({ asin: `C${b}${String(i).padStart(8, '0')}`, marketplace: 'de', frequency: 'hourly' as const })));
    const outcomes = (await Promise.all(batches.map((batch) => addSubscriptions(db, id, batch)))).flat();
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(10);
    expect(outcomes.filter((o) => o.kind === 'limit')).toHaveLength(40);
    expect(await prisma.subscription.count({ where: { accountId: id } })).toBe(MAX_SUBSCRIPTIONS_PER_ACCOUNT);
  });

  it('concurrent deliveries charge exactly what the balance covers, then pause every subscription once', async () => {
    const { id } = await createAccount(db, { login: 'racer', email: 'r@example.com', balance: PRICE * 3.5 });
    const subs = (await addSubscriptions(db, id, Array.from({ length: 10 }, (_, i) => ({ asin: `R${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'hourly' as const }))))
      .map((o) => (o.kind === 'limit' ? null : o.row)).filter((r) => r !== null);
    const observations = await Promise.all(subs.map((s) => storeObservation(db, product(s.asin!), s.id)));
    const outcomes = await Promise.all(subs.map((s, i) => deliverObservation(db, { subscriptionId: s.id, observationId: observations[i]! })));
    expect(outcomes.filter((o) => o === 'charged')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'paused')).toHaveLength(7);
    const account = await prisma.account.findUniqueOrThrow({ where: { id }, include: { subscriptions: true } });
    const money = await accountMoney(prisma, { id });
    expect(money.balance).toBeCloseTo(PRICE * 0.5, 9);
    expect(account.subscriptionsPaused).toBe(true);
    expect(account.subscriptions.every((s) => s.status === 'paused_balance')).toBe(true);
    expect(money.entries.filter((e) => e.kind === 'monitoring')).toHaveLength(3);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    // Unpaid reads are detached; a retried delivery of a charged observation is not charged again.
    expect(await prisma.observation.count({ where: { id: { in: observations }, subscriptionId: null } })).toBe(7);
    const charged = subs.findIndex((_, i) => outcomes[i] === 'charged');
    expect(await deliverObservation(db, { subscriptionId: subs[charged]!.id, observationId: observations[charged]! })).toBe('charged');
    expect(await prisma.ledgerEntry.count({ where: { accountId: id, kind: 'monitoring' } })).toBe(3);

    await topUp(db, { login: 'racer', amount: 1 });
    const resumed = await prisma.account.findUniqueOrThrow({ where: { id }, include: { subscriptions: true } });
    expect(resumed.subscriptionsPaused).toBe(false);
    expect(resumed.subscriptions.every((s) => s.status === 'active')).toBe(true);
  });

  it('concurrent run reservations charge exactly what the balance covers, pause once, and a concurrent retry of one run charges once', async () => {
    const { id } = await createAccount(db, { login: 'reserver', email: 'v@example.com', balance: PRICE * 3.5 });
    const subs = (await addSubscriptions(db, id, Array.from({ length: 10 }, (_, i) => ({ asin: `V${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'hourly' as const }))))
      .map((o) => (o.kind === 'limit' ? null : o.row)).filter((r) => r !== null);
    // Each run twice at once: an activity retried while its first attempt is still running.
    const runs = subs.flatMap((s) => [0, 1].map(() => ({ subscriptionId: s.id, runKey: `m:${s.id}:race:1`, reserve: true })));
    const starts = await Promise.all(runs.map((run) => startMonitoringRun(db, run)));
    const reservedSubs = new Set(runs.filter((_, i) => starts[i] === 'reserved').map((r) => r.subscriptionId));
    expect(reservedSubs.size).toBe(3);
    const money = await accountMoney(prisma, { id });
    expect(money.entries.filter((e) => e.kind === 'monitoring')).toHaveLength(3);
    expect(money.balance).toBeCloseTo(PRICE * 0.5, 9);
    expect(money.ledgerSum).toBeCloseTo(money.balance, 9);
    const account = await prisma.account.findUniqueOrThrow({ where: { id }, include: { subscriptions: true } });
    expect(account.subscriptionsPaused).toBe(true);
    expect(account.subscriptions.every((s) => s.status === 'paused_balance')).toBe(true);

    // A reserved run stores once and is refunded once, whatever runs at the same time.
    const [first, second] = [...reservedSubs];
    const stored = await Promise.all([0, 1].map(() => storeMonitoringObservation(db, { subscriptionId: first!, runKey: `m:${first}:race:1`, product: product(`V${first}`) })));
    expect(stored[0]).toEqual(stored[1]);
    expect(await prisma.observation.count({ where: { subscriptionId: first! } })).toBe(1);
    const refunds = await Promise.all([0, 1, 2].map(() => refundMonitoringRun(db, { runKey: `m:${second}:race:1` })));
    expect(refunds).toEqual(['refunded', 'refunded', 'refunded']);
    const after = await accountMoney(prisma, { id });
    expect(after.entries.filter((e) => e.kind === 'refund')).toHaveLength(1);
    expect(after.balance).toBeCloseTo(PRICE * 1.5, 9);
  });
});
