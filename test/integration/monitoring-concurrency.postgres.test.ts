/**
 * The monitoring rules of core/subscriptions.ts under real concurrency, on the real PostgreSQL
 * (a pool of 10 connections; PGlite runs one query at a time): concurrent adds never exceed 10,000
 * subscriptions per account, and concurrent deliveries charge exactly what the balance covers and
 * pause the account once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, topUp } from '../../api/admin/accounts.js';
import { applyMigrations } from '../../core/db/migrator.js';
import { createPrisma, type PrismaClient } from '../../core/db/prisma.js';
import { storeObservation } from '../../core/observations.js';
import { PLANS } from '../../core/pricing.js';
import type { Product } from '../../core/product.js';
import { addSubscriptions, deliverObservation, MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../../core/subscriptions.js';
import { createScratchDatabase } from '../support/env.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const PRICE = PLANS.standard!.rates.monitoring;
let db: { url: string; drop(): Promise<void> };
let prisma: PrismaClient;

function product(asin: string): Product {
  return {
    asin, marketplace: 'com', url: `https://www.amazon.com/dp/${asin}`, observed_at: new Date().toISOString(), status: 'ok', title: 'T',
    byline: [], variant: null, variants: [], price: null, bsr: null, rating: null, ratings_count: null, image_url: null, details: {}, parser_version: 'test',
  };
}

const postgresPrerequisite = await postgres();

beforeAll(async () => {
  if (postgresPrerequisite.missing) return;
  db = await createScratchDatabase();
  await applyMigrations(db.url);
  prisma = createPrisma(db.url, 10);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

describeNeeding([postgresPrerequisite], 'monitoring rules under concurrency (PostgreSQL)', () => {
  it('concurrent adds stop at exactly 10,000 subscriptions per account', async () => {
    const { id } = await createAccount(prisma, { login: 'crowded', email: 'c@example.com', balance: 1 });
    await prisma.subscription.createMany({
      data: Array.from({ length: MAX_SUBSCRIPTIONS_PER_ACCOUNT - 10 }, (_, i) => ({ accountId: id, asin: `S${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'daily' })),
    });
    const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 10 }, (_, i) => ({ asin: `C${b}${String(i).padStart(8, '0')}`, marketplace: 'de', frequency: 'hourly' as const })));
    const outcomes = (await Promise.all(batches.map((batch) => addSubscriptions(prisma, id, batch)))).flat();
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(10);
    expect(outcomes.filter((o) => o.kind === 'limit')).toHaveLength(40);
    expect(await prisma.subscription.count({ where: { accountId: id } })).toBe(MAX_SUBSCRIPTIONS_PER_ACCOUNT);
  });

  it('concurrent deliveries charge exactly what the balance covers, then pause every subscription once', async () => {
    const { id } = await createAccount(prisma, { login: 'racer', email: 'r@example.com', balance: PRICE * 3.5 });
    const subs = (await addSubscriptions(prisma, id, Array.from({ length: 10 }, (_, i) => ({ asin: `R${String(i).padStart(9, '0')}`, marketplace: 'com', frequency: 'hourly' as const }))))
      .map((o) => (o.kind === 'limit' ? null : o.row)).filter((r) => r !== null);
    const observations = await Promise.all(subs.map((s) => storeObservation(prisma, product(s.asin), s.id)));
    const outcomes = await Promise.all(subs.map((s, i) => deliverObservation(prisma, { subscriptionId: s.id, observationId: observations[i]! })));
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
    expect(await deliverObservation(prisma, { subscriptionId: subs[charged]!.id, observationId: observations[charged]! })).toBe('charged');
    expect(await prisma.ledgerEntry.count({ where: { accountId: id, kind: 'monitoring' } })).toBe(3);

    await topUp(prisma, { login: 'racer', amount: 1 });
    const resumed = await prisma.account.findUniqueOrThrow({ where: { id }, include: { subscriptions: true } });
    expect(resumed.subscriptionsPaused).toBe(false);
    expect(resumed.subscriptions.every((s) => s.status === 'active')).toBe(true);
  });
});
