/**
 * The change-alert rules (core/domain/alert-rules.ts), each kind over a sequence of observations:
 * when it fires, that it does not fire again for the same state, how it re-arms, and that an
 * unknown field never fires a rule nor moves its state.
 */
import { describe, expect, it } from 'vitest';
import {
  NEW_RULE_STATE,
  alertValueProblem,
  changeEventBody,
  evaluateRule,
  sideOf,
  type AlertObservation,
  type AlertRuleSpec,
  type AlertRuleState,
} from '../../core/domain/alert-rules.js';

let minute = 0;
/** An observation of a `com` product page, one minute after the previous one; `over` replaces fields. */
function page(over: Partial<AlertObservation> = {}): AlertObservation {
  minute++;
  return {
    observed_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
    status: 'ok', title: 'Kettle', price: null, bsr: null, availability: null, buy_box: null,
    feature_bullets: ['1.7 l'], images: ['https://m.media-amazon.com/images/I/1.jpg'], quality: { version: 2 }, ...over,
  };
}
const price = (amount: number, currency = 'USD') => page({ price: { amount, currency } });
const rank = (r: number) => page({ bsr: { rank: r } });
const stock = (status: string) => page({ availability: { status } });
const seller = (name: string | null, id: string | null = null) => page({ buy_box: { seller_name: name, seller_id: id } });

/** Runs the rule over the observations from a new state; true for each observation that fired it. */
function run(rule: AlertRuleSpec, observations: AlertObservation[], start: AlertRuleState = NEW_RULE_STATE): boolean[] {
  let state = start;
  return observations.map((o) => {
    const out = evaluateRule(rule, state, sideOf(rule.type, o, 'USD'));
    state = out.state;
    return out.change !== null;
  });
}

describe('price_below', () => {
  const rule: AlertRuleSpec = { type: 'price_below', value: 20 };

  it('fires when the price crosses below the threshold, not again while it stays below, again after it went back up', () => {
    expect(run(rule, [price(25), price(19.99), price(18), price(19.99), price(20), price(15), price(14)]))
      .toEqual([false, true, false, false, false, true, false]);
  });

  it('a price already below at the first observation does not fire; leaving and re-entering does', () => {
    expect(run(rule, [price(10), price(12), price(21), price(12)])).toEqual([false, false, false, true]);
  });

  it('an unknown price (missing, another currency, not_found page) neither fires nor re-arms it', () => {
    expect(run(rule, [price(25), page(), price(15)])).toEqual([false, false, true]);
    expect(run(rule, [price(25), price(15), page({ status: 'not_found' }), price(15, 'EUR'), price(15)])).toEqual([false, true, false, false, false]);
  });

  it('the event carries the last known price before and the new price after', () => {
    const first = evaluateRule(rule, NEW_RULE_STATE, sideOf('price_below', price(25), 'USD'));
    const second = evaluateRule(rule, first.state, sideOf('price_below', price(19), 'USD'));
    expect(second.change).toEqual({
      before: { observed_at: expect.any(String), price: { amount: 25, currency: 'USD' } },
      after: { observed_at: expect.any(String), price: { amount: 19, currency: 'USD' } },
    });
    expect(second.state).toEqual({ armed: false, reference: second.change!.after });
  });
});

describe('price_drop_percent', () => {
  const rule: AlertRuleSpec = { type: 'price_drop_percent', value: 10 };

  it('fires on a drop of at least N % from the last known price; a further drop right after does not; a steady price re-arms it', () => {
    expect(run(rule, [price(100), price(90), price(80), price(80), price(72), price(70)]))
      .toEqual([false, true, false, false, true, false]);
  });

  it('a smaller drop or a rise does not fire; an exact N % on decimal prices does', () => {
    expect(run(rule, [price(100), price(91), price(95), price(99.99), price(89.991)])).toEqual([false, false, false, false, true]);
  });

  it('never fires from unknown: the first known price and a price after a gap compare with the last known one', () => {
    expect(run(rule, [page(), price(50), page(), price(40)])).toEqual([false, false, false, true]);
  });
});

describe('bsr_below', () => {
  const rule: AlertRuleSpec = { type: 'bsr_below', value: 1000 };

  it('fires when the rank crosses below the threshold, once, and again after going back above', () => {
    expect(run(rule, [rank(1500), rank(999), rank(500), rank(1000), rank(800), rank(700)]))
      .toEqual([false, true, false, false, true, false]);
  });

  it('a page without rank is unknown', () => {
    expect(run(rule, [rank(1500), page({ status: 'no_bsr' }), rank(900)])).toEqual([false, false, true]);
  });
});

describe('bsr_change_percent', () => {
  const rule: AlertRuleSpec = { type: 'bsr_change_percent', value: 50 };

  it('fires on a move of at least N % either way; not on the next move while still moving; re-arms on a steady rank', () => {
    expect(run(rule, [rank(1000), rank(1500), rank(3000), rank(3100), rank(1000), rank(1100)]))
      .toEqual([false, true, false, false, true, false]);
  });
});

describe('availability_change', () => {
  const rule: AlertRuleSpec = { type: 'availability_change', value: null };

  it('fires on out of stock and back in stock, never for the same state again; low stock is still in stock', () => {
    expect(run(rule, [stock('in_stock'), stock('out_of_stock'), stock('out_of_stock'), stock('low_stock'), stock('in_stock'), stock('preorder')]))
      .toEqual([false, true, false, true, false, true]);
  });

  it('a transition to or from unknown never fires: the known states on each side of the gap are compared', () => {
    expect(run(rule, [stock('in_stock'), page(), stock('unknown'), stock('in_stock'), page(), stock('out_of_stock')]))
      .toEqual([false, false, false, false, false, true]);
  });
});

describe('buy_box_change', () => {
  const rule: AlertRuleSpec = { type: 'buy_box_change', value: null };

  it('fires when the seller changes (by id when both have one, else by name), once per change, and back', () => {
    expect(run(rule, [seller('Amazon.com', 'ATVPDKIKX0DER'), seller('Amazon.com', 'ATVPDKIKX0DER'), seller('Gadgets Ltd', 'A2X'), seller('gadgets ltd'), seller('Amazon.com', 'ATVPDKIKX0DER')]))
      .toEqual([false, false, true, false, true]);
  });

  it('no buy box is unknown', () => {
    expect(run(rule, [seller('A'), page(), seller(null, null), seller('B')])).toEqual([false, false, false, true]);
  });
});

describe('content_change', () => {
  const rule: AlertRuleSpec = { type: 'content_change', value: null };

  it('fires when title, bullets or images change, not for re-flowed white space, and back', () => {
    expect(run(rule, [
      page(),
      page({ title: '  Kettle\n' }),
      page({ feature_bullets: ['1.7 l', 'steel'] }),
      page({ feature_bullets: ['1.7 l', 'steel'] }),
      page({ images: [] }),
      page(),
    ])).toEqual([false, false, true, false, true, true]);
  });

  it('observations stored before version 2 (no bullets, no images) are unknown, so the first version 2 page does not fire', () => {
    expect(run(rule, [page({ quality: { version: 1 }, feature_bullets: [], images: [] }), page(), page({ title: 'New' })])).toEqual([false, false, true]);
  });
});

describe('rule values', () => {
  it('names what is wrong with a value', () => {
    expect(alertValueProblem('price_below', 19.99)).toBeNull();
    expect(alertValueProblem('price_below', null)).toMatch(/needs a value/);
    expect(alertValueProblem('price_below', 0)).toMatch(/above 0/);
    expect(alertValueProblem('price_drop_percent', 100)).toBeNull();
    expect(alertValueProblem('price_drop_percent', 100.5)).toMatch(/at most 100/);
    expect(alertValueProblem('bsr_below', 10.5)).toMatch(/integer/);
    expect(alertValueProblem('bsr_below', 1)).toMatch(/above 1/);
    expect(alertValueProblem('content_change', 3)).toMatch(/takes no value/);
    expect(alertValueProblem('availability_change', null)).toBeNull();
  });
});

it('a change event body lists its keys in the documented order', () => {
  const before = { observed_at: '2026-01-01T00:00:00.000Z', price: { amount: 25, currency: 'USD' } };
  const after = { observed_at: '2026-01-01T01:00:00.000Z', price: { amount: 19, currency: 'USD' } };
  const body = changeEventBody({ event_id: 'e', subscription_id: 3, asin: 'B0000000P1', marketplace: 'com', rule: { id: 9, type: 'price_below', value: 20 }, before, after });
  expect(Object.keys(body)).toEqual(['event_id', 'kind', 'subscription_id', 'asin', 'marketplace', 'rule', 'before', 'after', 'observed_at']);
  // A side read back from JSONB has its keys sorted by length: the body orders them again.
  const stored = changeEventBody({ event_id: 'e', subscription_id: 3, asin: 'B0000000P1', marketplace: 'com', rule: { id: 9, type: 'buy_box_change', value: null },
    before: { buy_box: { seller_id: 'A1', seller_name: 'One' }, observed_at: before.observed_at }, after: { observed_at: after.observed_at, buy_box: { seller_name: 'Two', seller_id: null } } });
  expect(JSON.stringify(stored.before)).toBe(`{"observed_at":"${before.observed_at}","buy_box":{"seller_name":"One","seller_id":"A1"}}`);
  expect(body).toMatchObject({ kind: 'change', observed_at: after.observed_at });
});
