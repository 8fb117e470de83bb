/**
 * Change alerts of monitoring subscriptions: the seven rule types, the bounds of their `value`, and
 * how a rule judges a new observation against what it saw before (pure; the storage and the
 * delivery are core/alerts.ts and the `webhookDelivery` workflow, kind `change`).
 *
 * Each rule keeps a state: the last value it knew of its field (`reference`, with that
 * observation's time) and whether it is `armed`. A field that cannot be read (null, `unknown`, a
 * not_found page, a price in another currency, content of an observation stored before version 2)
 * is unknown: it neither fires a rule nor changes its state, so a rule never fires on a transition
 * to or from unknown; the next known value is compared with the last known one.
 *
 * - Thresholds (`price_below`, `bsr_below`): fire when the value enters the condition (strictly
 *   below `value`) while armed; then disarm until an observation outside the condition re-arms
 *   them (hysteresis: the price must leave and re-enter the condition). The first known value
 *   only arms or disarms: a price already below the threshold does not fire.
 * - Moves (`price_drop_percent`: the price fell by at least `value` % since the last known price;
 *   `bsr_change_percent`: the rank moved by at least `value` % either way): fire while armed, then
 *   disarm until an observation that is not such a move.
 * - Changes (`availability_change` between in stock (in_stock, low_stock), out_of_stock,
 *   preorder and back_order; `buy_box_change`, the featured offer's seller by id, else by name;
 *   `content_change`, the content hash of title, bullets and images): fire on every change to a
 *   different known state; the same state again never fires.
 *
 * Rank rules (keyword subscriptions, search-page-contract.md "API" Monitoring) judge one tracked
 * ASIN (the rule's `asin`) in the results pages a run read (core/domain/rank-alert-rules.ts reads
 * its side: `organic_rank`, null when absent, and `sponsored`), by the same three kinds:
 * - thresholds `rank_above` (organic rank better, i.e. lower, than `value`) and `rank_below`
 *   (worse than `value`, or absent): fire on entering the condition while armed, then re-arm only
 *   after a read outside it; the first read only arms or disarms;
 * - move `rank_change` (the organic rank moved by at least `value` places either way between two
 *   consecutive reads where the ASIN is present; entering or leaving the results is not a move);
 * - change `sponsored_change` (the ASIN gained or lost a sponsored slot).
 */
import { contentHash } from './content-hash.js';

/** The rule types of product subscriptions. */
export const PRODUCT_ALERT_TYPES = [
  'price_below',
  'price_drop_percent',
  'availability_change',
  'buy_box_change',
  'bsr_below',
  'bsr_change_percent',
  'content_change',
] as const;
/** The rule types of keyword subscriptions: each judges one tracked ASIN's place in the results. */
export const RANK_ALERT_TYPES = ['rank_above', 'rank_below', 'rank_change', 'sponsored_change'] as const;
/** The rule types of monitoring/add `alerts[].type`. */
export const ALERT_TYPES = [...PRODUCT_ALERT_TYPES, ...RANK_ALERT_TYPES] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type RankAlertType = (typeof RANK_ALERT_TYPES)[number];

/** True for the rank rule types (keyword subscriptions only). */
export function isRankAlertType(type: AlertType): type is RankAlertType {
  return (RANK_ALERT_TYPES as readonly string[]).includes(type);
}

/** Rules one subscription may carry. */
export const MAX_ALERT_RULES = 10;

/** What `value` a rule type takes: none, or a number within bounds (`minExclusive` < value ≤ `max`). */
export type AlertValueRule =
  | { takes: 'none' }
  | { takes: 'number'; minExclusive: number; max: number; integer: boolean; unit: string };

/** The `value` of each rule type (api: monitoring/add `alerts[].value`). */
export const ALERT_VALUE_RULES: Record<AlertType, AlertValueRule> = {
  // Prices are numeric(18,4) in the marketplace currency; a threshold above 10^9 is no threshold.
  price_below: { takes: 'number', minExclusive: 0, max: 1_000_000_000, integer: false, unit: 'price in the marketplace currency' },
  price_drop_percent: { takes: 'number', minExclusive: 0, max: 100, integer: false, unit: 'percent' },
  availability_change: { takes: 'none' },
  buy_box_change: { takes: 'none' },
  // A rank below 1 cannot be: `bsr_below 1` would never fire.
  bsr_below: { takes: 'number', minExclusive: 1, max: 2_147_483_647, integer: true, unit: 'rank' },
  bsr_change_percent: { takes: 'number', minExclusive: 0, max: 100_000, integer: false, unit: 'percent' },
  content_change: { takes: 'none' },
  // An organic rank better than 1 cannot be: `rank_above 1` would never fire.
  rank_above: { takes: 'number', minExclusive: 1, max: 1000, integer: true, unit: 'organic rank' },
  rank_below: { takes: 'number', minExclusive: 0, max: 1000, integer: true, unit: 'organic rank' },
  rank_change: { takes: 'number', minExclusive: 0, max: 1000, integer: true, unit: 'places' },
  sponsored_change: { takes: 'none' },
};

/** Why a rule's `value` is refused, or null when it fits its type. */
export function alertValueProblem(type: AlertType, value: number | null): string | null {
  const rule = ALERT_VALUE_RULES[type];
  if (rule.takes === 'none') return value === null ? null : `${type} takes no value`;
  if (value === null) return `${type} needs a value (${rule.unit})`;
  if (!Number.isFinite(value) || value <= rule.minExclusive || value > rule.max || (rule.integer && !Number.isInteger(value))) {
    return `${type} needs ${rule.integer ? 'an integer' : 'a number'} above ${rule.minExclusive} and at most ${rule.max} (${rule.unit})`;
  }
  return null;
}

/** A rule as configured. */
export interface AlertRuleSpec {
  type: AlertType;
  /** Threshold or percentage; null for the change types. */
  value: number | null;
  /** Rank rules: the tracked ASIN the rule judges; absent or null for product rules. */
  asin?: string | null;
}

/** One side of a change: the rule's field at one observation (only that field is present). */
export interface ChangeSide {
  /** When that observation's page was read, ISO 8601 UTC. */
  observed_at: string;
  price?: { amount: number; currency: string };
  bsr_rank?: number;
  availability?: string;
  buy_box?: { seller_name: string | null; seller_id: string | null };
  content_hash?: string;
  /** Rank rules: the tracked ASIN's organic rank over the pages read (1-based), null when absent. */
  organic_rank?: number | null;
  /** Rank rules: whether the tracked ASIN held a sponsored slot on the pages read. */
  sponsored?: boolean;
}

/** What a rule reads of an observation (a Product has these fields). */
export interface AlertObservation {
  observed_at: string;
  status: string;
  title: string | null;
  price: { amount: number; currency: string } | null;
  bsr: { rank: number } | null;
  availability: { status: string } | null;
  buy_box: { seller_name: string | null; seller_id: string | null } | null;
  feature_bullets: readonly string[];
  images: readonly string[];
  quality: { version: number };
}

/** A rule's stored state (see the module comment). A new rule is armed and knows nothing. */
export interface AlertRuleState {
  armed: boolean;
  reference: ChangeSide | null;
}

export const NEW_RULE_STATE: AlertRuleState = { armed: true, reference: null };

/** Availability as the alert compares it: low stock is still in stock; `unknown` is unknown. */
const STOCK: Record<string, string> = { in_stock: 'in_stock', low_stock: 'in_stock', out_of_stock: 'out_of_stock', preorder: 'preorder', back_order: 'back_order' };

/**
 * The rule's field in an observation, or null when it is unknown there.
 * @param currency the marketplace's currency: a price in any other is unknown.
 */
export function sideOf(type: AlertType, observation: AlertObservation, currency: string): ChangeSide | null {
  if (observation.status === 'not_found') return null;
  const at = observation.observed_at;
  switch (type) {
    case 'price_below':
    case 'price_drop_percent': {
      const price = observation.price;
      return price && price.currency === currency ? { observed_at: at, price: { amount: price.amount, currency: price.currency } } : null;
    }
    case 'bsr_below':
    case 'bsr_change_percent':
      return observation.bsr ? { observed_at: at, bsr_rank: observation.bsr.rank } : null;
    case 'availability_change': {
      const status = observation.availability?.status;
      return status && STOCK[status] ? { observed_at: at, availability: status } : null;
    }
    case 'buy_box_change': {
      const box = observation.buy_box;
      return box && (box.seller_id || box.seller_name) ? { observed_at: at, buy_box: { seller_name: box.seller_name, seller_id: box.seller_id } } : null;
    }
    case 'content_change': {
      // Observations stored before version 2 carry no bullets or images: their hash would differ
      // from the first version 2 page's without any change on the page.
      const hash = observation.quality.version >= 2 ? contentHash(observation) : null;
      return hash ? { observed_at: at, content_hash: hash } : null;
    }
    default:
      // Rank rules read a keyword run's pages (rank-alert-rules.ts `rankSideOf`), never a product page.
      return null;
  }
}

/** The buy box's seller changed: by id when both sides have one, else by name; null when they cannot be compared. */
function sellerChanged(before: ChangeSide['buy_box'], after: ChangeSide['buy_box']): boolean | null {
  if (before?.seller_id && after?.seller_id) return before.seller_id !== after.seller_id;
  if (before?.seller_name && after?.seller_name) return before.seller_name.trim().toLowerCase() !== after.seller_name.trim().toLowerCase();
  return null;
}

/** Percent change from `from` to `to` (positive: up). */
const percent = (from: number, to: number) => ((to - from) / from) * 100;
/** Float noise of a percentage computed from decimal prices (99.99 → 89.991 is exactly 10 %). */
const EPSILON = 1e-9;

/**
 * Whether the rule's condition holds for `after` (and `before` for moves and changes); null when
 * the two cannot be compared (no reference yet, another currency, sellers without a common key).
 */
function condition(rule: AlertRuleSpec, before: ChangeSide | null, after: ChangeSide): boolean | null {
  const v = rule.value ?? 0;
  switch (rule.type) {
    case 'price_below': return after.price!.amount < v;
    case 'bsr_below': return after.bsr_rank! < v;
    case 'price_drop_percent': {
      const from = before?.price;
      if (!from || from.currency !== after.price!.currency || from.amount <= 0) return null;
      return -percent(from.amount, after.price!.amount) >= v - EPSILON;
    }
    case 'bsr_change_percent': {
      if (before?.bsr_rank === undefined) return null;
      return Math.abs(percent(before.bsr_rank, after.bsr_rank!)) >= v - EPSILON;
    }
    case 'availability_change':
      return before?.availability === undefined ? null : STOCK[before.availability] !== STOCK[after.availability!];
    case 'buy_box_change':
      return before?.buy_box === undefined ? null : sellerChanged(before.buy_box, after.buy_box);
    case 'content_change':
      return before?.content_hash === undefined ? null : before.content_hash !== after.content_hash;
    case 'rank_above': return after.organic_rank !== null && after.organic_rank !== undefined && after.organic_rank < v;
    // Absent from the pages read is worse than any rank.
    case 'rank_below': return after.organic_rank === null || after.organic_rank === undefined || after.organic_rank > v;
    case 'rank_change': {
      const from = before?.organic_rank;
      const to = after.organic_rank;
      if (from === null || from === undefined || to === null || to === undefined) return null;
      return Math.abs(to - from) >= v;
    }
    case 'sponsored_change':
      return before?.sponsored === undefined || after.sponsored === undefined ? null : before.sponsored !== after.sponsored;
  }
}

/** The hysteresis group of each rule type (see the module comment). */
function kindOf(type: AlertType): 'threshold' | 'move' | 'change' {
  switch (type) {
    case 'price_below': case 'bsr_below': case 'rank_above': case 'rank_below': return 'threshold';
    case 'price_drop_percent': case 'bsr_change_percent': case 'rank_change': return 'move';
    default: return 'change';
  }
}

/** A fired rule: the rule's field before (the last known value) and after (the new observation). */
export interface RuleChange {
  before: ChangeSide;
  after: ChangeSide;
}

/**
 * Judges one new observation's side of the rule's field (`after`, from `sideOf`) against the
 * rule's state (see the module comment).
 * @returns the next state, and the change when the rule fires.
 */
export function evaluateRule(rule: AlertRuleSpec, state: AlertRuleState, after: ChangeSide | null): { state: AlertRuleState; change: RuleChange | null } {
  if (after === null) return { state, change: null };
  const before = state.reference;
  const holds = condition(rule, before, after);
  const next = (armed: boolean): AlertRuleState => ({ armed, reference: after });
  const kind = kindOf(rule.type);
  if (kind === 'threshold') {
    if (before === null) return { state: next(!holds), change: null };
    if (holds && state.armed) return { state: next(false), change: { before, after } };
    return { state: next(state.armed || !holds), change: null };
  }
  if (holds === null) return { state: next(state.armed), change: null };
  if (kind === 'move') {
    if (holds && state.armed) return { state: next(false), change: { before: before!, after } };
    return { state: next(state.armed || !holds), change: null };
  }
  return { state: next(true), change: holds ? { before: before!, after } : null };
}

/** A rule as a change event names it. */
export interface ChangeEventRule {
  id: number;
  type: AlertType;
  value: number | null;
  /** Rank rules only: the tracked ASIN. */
  asin?: string;
}

/** The JSON body of a `change` event (POSTed to the subscription's alert_url, signed like a postback). */
export interface ChangeEventBody {
  event_id: string;
  kind: 'change';
  subscription_id: number;
  /** The product's ASIN; for a rank rule, the tracked ASIN it judges. */
  asin: string;
  marketplace: string;
  /** Keyword subscriptions only: the keyword as subscribed. */
  keyword?: string;
  rule: ChangeEventRule;
  before: ChangeSide;
  after: ChangeSide;
  /** When the observation that fired the rule was read (`after.observed_at`). */
  observed_at: string;
}

/** A side with its keys in the documented order (a side read back from JSONB has them sorted by length). */
function orderedSide(side: ChangeSide): ChangeSide {
  return {
    observed_at: side.observed_at,
    ...(side.price ? { price: { amount: side.price.amount, currency: side.price.currency } } : {}),
    ...(side.bsr_rank === undefined ? {} : { bsr_rank: side.bsr_rank }),
    ...(side.availability === undefined ? {} : { availability: side.availability }),
    ...(side.buy_box ? { buy_box: { seller_name: side.buy_box.seller_name, seller_id: side.buy_box.seller_id } } : {}),
    ...(side.content_hash === undefined ? {} : { content_hash: side.content_hash }),
    ...(side.organic_rank === undefined ? {} : { organic_rank: side.organic_rank }),
    ...(side.sponsored === undefined ? {} : { sponsored: side.sponsored }),
  };
}

/** The body of a change event, keys in the documented order. */
export function changeEventBody(input: Omit<ChangeEventBody, 'kind' | 'observed_at'>): ChangeEventBody {
  return {
    event_id: input.event_id,
    kind: 'change',
    subscription_id: input.subscription_id,
    asin: input.asin,
    marketplace: input.marketplace,
    ...(input.keyword === undefined ? {} : { keyword: input.keyword }),
    rule: { id: input.rule.id, type: input.rule.type, value: input.rule.value, ...(input.rule.asin ? { asin: input.rule.asin } : {}) },
    before: orderedSide(input.before),
    after: orderedSide(input.after),
    observed_at: input.after.observed_at,
  };
}
