/**
 * Change alerts of monitoring subscriptions (table `alert_rules`; events in `webhook_events`, kind
 * `change`): setting a subscription's rules, and judging each new monitoring observation by them.
 * The rules themselves are pure (core/domain/alert-rules.ts); this module stores their state and
 * records the events. A fired rule's event is delivered to the subscription's `alert_url` by the
 * `webhookDelivery` workflow (kind `change`), which the monitor starts from the read's result.
 */
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from './db/prisma.js';
import { resolveMarketplace } from './marketplaces.js';
import type { Product } from './product.js';
import type { SearchResults } from './search.js';
import { rankSideOf } from './domain/rank-alert-rules.js';
import {
  changeEventBody,
  evaluateRule,
  sideOf,
  type AlertRuleSpec,
  type AlertRuleState,
  type AlertType,
  type ChangeSide,
} from './domain/alert-rules.js';

type Tx = Prisma.TransactionClient;

/** A stored rule. */
export type AlertRuleRow = Prisma.AlertRuleGetPayload<object>;

/** A rule as monitoring/add, monitoring/list and GraphQL show it. */
export interface AlertRuleObject {
  id: number;
  type: AlertType;
  /** Threshold or percent; null for the change types. */
  value: number | null;
  /** Rank rules of keyword subscriptions: the tracked ASIN the rule judges (absent on product rules). */
  asin?: string;
  /** False after the rule fired, until an observation outside its condition re-arms it. */
  armed: boolean;
  /** The last known value of the rule's field; null before the first. */
  last_known: ChangeSide | null;
  /** Change events the rule has recorded. */
  triggered_count: number;
  last_triggered_at: string | null;
}

/** The API's view of a stored rule. */
export function toAlertRule(row: AlertRuleRow): AlertRuleObject {
  return {
    id: row.id,
    type: row.type as AlertType,
    value: row.value === null ? null : row.value.toNumber(),
    ...(row.asin === null ? {} : { asin: row.asin }),
    armed: row.armed,
    last_known: (row.reference as ChangeSide | null) ?? null,
    triggered_count: row.triggeredCount,
    last_triggered_at: row.lastTriggeredAt?.toISOString() ?? null,
  };
}

const sameRule = (row: AlertRuleRow, spec: AlertRuleSpec) => row.type === spec.type && (row.asin ?? null) === (spec.asin ?? null)
  && (row.value === null ? spec.value === null : spec.value !== null && row.value.equals(spec.value));

/**
 * Replaces the subscription's rules with `specs`, in order, inside the caller's transaction. A rule
 * given again (same type and value) keeps its id and state, so posting the same alerts twice does
 * not re-arm anything; the others are deleted, and new ones start armed and knowing nothing.
 */
export async function replaceAlertRules(tx: Tx, subscriptionId: number, specs: AlertRuleSpec[]): Promise<void> {
  const existing = await tx.alertRule.findMany({ where: { subscriptionId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
  const kept = new Set<number>();
  const plan = specs.map((spec, position) => {
    const match = existing.find((row) => !kept.has(row.id) && sameRule(row, spec));
    if (match) kept.add(match.id);
    return { spec, position, match };
  });
  const dropped = existing.filter((row) => !kept.has(row.id)).map((row) => row.id);
  if (dropped.length) await tx.alertRule.deleteMany({ where: { id: { in: dropped } } });
  for (const { spec, position, match } of plan) {
    if (match) {
      if (match.position !== position) await tx.alertRule.update({ where: { id: match.id }, data: { position } });
    } else {
      await tx.alertRule.create({ data: { subscriptionId, position, type: spec.type, value: spec.value === null ? null : String(spec.value), asin: spec.asin ?? null } });
    }
  }
}

/** The rules of each subscription, in order (one query). */
export async function alertRulesOf(prisma: PrismaClient | Tx, subscriptionIds: number[]): Promise<Map<number, AlertRuleObject[]>> {
  const out = new Map<number, AlertRuleObject[]>(subscriptionIds.map((id) => [id, []]));
  if (subscriptionIds.length === 0) return out;
  const rows = await prisma.alertRule.findMany({ where: { subscriptionId: { in: subscriptionIds } }, orderBy: [{ subscriptionId: 'asc' }, { position: 'asc' }, { id: 'asc' }] });
  for (const row of rows) out.get(row.subscriptionId)?.push(toAlertRule(row));
  return out;
}

/** The change events a monitoring observation recorded that have a URL to go to: what to deliver. */
export interface RecordedChanges {
  accountId: number;
  /** Ids of the events with a URL, in rule order. */
  eventIds: string[];
}

/** Where a judged read came from: a product observation, or the page 1 SearchResults of a keyword run. */
type ReadRef = { observationId: bigint } | { searchObservationId: bigint };

/**
 * Judges one read by the subscription's rules (the caller holds the account's lock, so rule states
 * change one read at a time): each rule's state is updated, and each rule that fires records one
 * `change` event with its body (to the subscription's alert_url when it has one).
 * @param sideFor the rule's side of the read (null: unknown there).
 * @param about the event body's `asin` (and `keyword`) for a rule.
 */
async function judgeRules(
  tx: Tx,
  input: { subscriptionId: number; accountId: number; marketplace: string; alertUrl: string | null; read: ReadRef },
  rules: AlertRuleRow[],
  sideFor: (rule: AlertRuleSpec) => ChangeSide | null,
  about: (rule: AlertRuleSpec) => { asin: string; keyword?: string },
): Promise<RecordedChanges | null> {
  const eventIds: string[] = [];
  for (const row of rules) {
    const rule: AlertRuleSpec = { type: row.type as AlertType, value: row.value === null ? null : row.value.toNumber(), ...(row.asin === null ? {} : { asin: row.asin }) };
    const state: AlertRuleState = { armed: row.armed, reference: (row.reference as ChangeSide | null) ?? null };
    const { state: next, change } = evaluateRule(rule, state, sideFor(rule));
    if (next === state) continue;
    const fired = change !== null;
    await tx.alertRule.update({
      where: { id: row.id },
      data: {
        armed: next.armed,
        reference: next.reference as unknown as Prisma.InputJsonValue,
        ...(fired ? { triggeredCount: { increment: 1 }, lastTriggeredAt: new Date() } : {}),
      },
    });
    if (!change) continue;
    const id = randomUUID();
    const body = changeEventBody({ event_id: id, subscription_id: input.subscriptionId, ...about(rule), marketplace: input.marketplace, rule: { id: row.id, type: rule.type, value: rule.value, ...(rule.asin ? { asin: rule.asin } : {}) }, ...change });
    await tx.webhookEvent.create({
      data: {
        id, accountId: input.accountId, kind: 'change', subscriptionId: input.subscriptionId, alertRuleId: row.id,
        ...input.read, url: input.alertUrl, body: JSON.stringify(body),
      },
    });
    if (input.alertUrl) eventIds.push(id);
  }
  return eventIds.length ? { accountId: input.accountId, eventIds } : null;
}

/** The subscription's rules in order. */
const rulesOf = (tx: Tx, subscriptionId: number) => tx.alertRule.findMany({ where: { subscriptionId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });

/**
 * Judges a product subscription's new observation by its rules, inside the transaction that
 * stores the observation (see `judgeRules`).
 * @returns the events to deliver (none when no rule fired or the subscription has no alert_url).
 */
export async function recordObservationAlerts(tx: Tx, input: { subscriptionId: number; observationId: bigint; product: Product }): Promise<RecordedChanges | null> {
  if (input.product.status === 'not_found') return null; // every field unknown: nothing fires, nothing moves
  const rules = await rulesOf(tx, input.subscriptionId);
  if (rules.length === 0) return null;
  const sub = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { accountId: true, asin: true, marketplace: true, alertUrl: true } });
  if (!sub || sub.asin === null) return null;
  const asin = sub.asin;
  const currency = resolveMarketplace(sub.marketplace)?.currency ?? '';
  return judgeRules(tx, { ...sub, subscriptionId: input.subscriptionId, read: { observationId: input.observationId } }, rules,
    (rule) => sideOf(rule.type, input.product, currency), () => ({ asin }));
}

/**
 * Judges a keyword subscription's run (its pages, page 1 first) by its rank rules, inside the
 * transaction that delivers the run (see `judgeRules`): each rule judges its tracked ASIN's side of
 * the pages (core/domain/rank-alert-rules.ts). The events refer to the run's page 1 observation.
 * @returns the events to deliver (none when no rule fired or the subscription has no alert_url).
 */
export async function recordRankAlerts(tx: Tx, input: { subscriptionId: number; pages: { id: bigint; results: SearchResults }[] }): Promise<RecordedChanges | null> {
  const first = input.pages[0];
  if (!first) return null;
  const rules = await rulesOf(tx, input.subscriptionId);
  if (rules.length === 0) return null;
  const sub = await tx.subscription.findUnique({ where: { id: input.subscriptionId }, select: { accountId: true, keyword: true, marketplace: true, alertUrl: true } });
  if (!sub || sub.keyword === null) return null;
  const keyword = sub.keyword;
  const pages = input.pages.map((p) => p.results);
  return judgeRules(tx, { ...sub, subscriptionId: input.subscriptionId, read: { searchObservationId: first.id } }, rules,
    (rule) => (rule.asin ? rankSideOf(rule.asin, pages, first.results.observed_at) : null), (rule) => ({ asin: rule.asin ?? '', keyword }));
}

/** The deliverable change events an observation already recorded (a retried read returns them again). */
export async function recordedAlertsOf(prisma: PrismaClient | Tx, subscriptionId: number, observationId: bigint): Promise<RecordedChanges | null> {
  const rows = await prisma.webhookEvent.findMany({
    where: { subscriptionId, observationId, kind: 'change', url: { not: null } },
    select: { id: true, accountId: true },
    orderBy: { alertRuleId: 'asc' },
  });
  return rows.length ? { accountId: rows[0]!.accountId, eventIds: rows.map((r) => r.id) } : null;
}

/** The deliverable change events a keyword run (named by its page 1 observation) already recorded. */
export async function recordedRankAlertsOf(prisma: PrismaClient | Tx, subscriptionId: number, searchObservationId: bigint): Promise<RecordedChanges | null> {
  const rows = await prisma.webhookEvent.findMany({
    where: { subscriptionId, searchObservationId, kind: 'change', url: { not: null } },
    select: { id: true, accountId: true },
    orderBy: { alertRuleId: 'asc' },
  });
  return rows.length ? { accountId: rows[0]!.accountId, eventIds: rows.map((r) => r.id) } : null;
}
