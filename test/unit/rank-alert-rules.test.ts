/**
 * The rank rules of keyword subscriptions (core/domain/alert-rules.ts, sides from
 * core/domain/rank-alert-rules.ts), each over a sequence of runs: when it fires, that it does not
 * fire again for the same state, how it re-arms, and how an ASIN absent from the pages counts.
 */
import { describe, expect, it } from 'vitest';
import { NEW_RULE_STATE, alertValueProblem, changeEventBody, evaluateRule, sideOf, type AlertRuleSpec, type AlertRuleState } from '../../core/domain/alert-rules.js';
import { rankSideOf, type RankPage } from '../../core/domain/rank-alert-rules.js';

const TRACKED = 'B0TRACKED1';
let minute = 0;
const at = () => new Date(Date.UTC(2026, 0, 1, 0, ++minute)).toISOString();

/** Filler organic items, then the tracked ASIN at organic rank `r` (null: absent), `sponsored`: also in a sponsored slot. */
function runPages(r: number | null, sponsored = false): RankPage[] {
  const items = Array.from({ length: 30 }, (_, i) => ({ asin: `B0FILLER${String(i).padStart(2, '0')}`, sponsored: false }));
  if (r !== null) items.splice(r - 1, 0, { asin: TRACKED, sponsored: false });
  if (sponsored) items.unshift({ asin: TRACKED, sponsored: true });
  return [{ items }];
}

/** Runs the rule over the runs (organic ranks, null absent; or pages) from a new state; true for each run that fired it. */
function run(rule: AlertRuleSpec, runs: (number | null | RankPage[])[], start: AlertRuleState = NEW_RULE_STATE): boolean[] {
  let state = start;
  return runs.map((r) => {
    const pages = Array.isArray(r) ? r : runPages(r);
    const out = evaluateRule(rule, state, rankSideOf(TRACKED, pages, at()));
    state = out.state;
    return out.change !== null;
  });
}

describe('rank side of a run', () => {
  it('counts organic items across pages, skips sponsored cards, and takes the first organic card', () => {
    const pages: RankPage[] = [
      { items: [{ asin: 'A000000001', sponsored: true }, { asin: 'A000000002', sponsored: false }, { asin: TRACKED, sponsored: true }, { asin: 'A000000003', sponsored: false }] },
      { items: [{ asin: 'A000000004', sponsored: false }, { asin: TRACKED.toLowerCase(), sponsored: false }, { asin: TRACKED, sponsored: false }] },
    ];
    expect(rankSideOf(TRACKED, pages, '2026-01-01T00:00:00.000Z')).toEqual({ observed_at: '2026-01-01T00:00:00.000Z', organic_rank: 4, sponsored: true });
  });

  it('an ASIN on none of the pages, or a no_results page, is absent: rank null, not sponsored', () => {
    expect(rankSideOf(TRACKED, runPages(null), 'x')).toEqual({ observed_at: 'x', organic_rank: null, sponsored: false });
    expect(rankSideOf(TRACKED, [{ items: [] }], 'x')).toEqual({ observed_at: 'x', organic_rank: null, sponsored: false });
  });

  it('a product page never yields a rank side', () => {
    const product = { observed_at: 'x', status: 'ok', title: 't', price: null, bsr: { rank: 3 }, availability: null, buy_box: null, feature_bullets: [], images: [], quality: { version: 2 } };
    expect(sideOf('rank_above', product, 'USD')).toBeNull();
  });
});

describe('rank_above', () => {
  const rule: AlertRuleSpec = { type: 'rank_above', value: 5, asin: TRACKED };

  it('fires when the organic rank becomes better than N, not again while it stays there, again after it fell back', () => {
    expect(run(rule, [8, 4, 2, 4, 5, 3, 1])).toEqual([false, true, false, false, false, true, false]);
  });

  it('a rank already better at the first run does not fire; absent is outside the condition and re-arms it', () => {
    expect(run(rule, [3, 2, null, 4, null, null, 1])).toEqual([false, false, false, true, false, false, true]);
  });
});

describe('rank_below', () => {
  const rule: AlertRuleSpec = { type: 'rank_below', value: 10, asin: TRACKED };

  it('fires when the rank becomes worse than N, once, and again after it came back to N or better', () => {
    expect(run(rule, [3, 11, 25, 10, 12, 12])).toEqual([false, true, false, false, true, false]);
  });

  it('fires when the ASIN drops out of the pages read (absent), not again while absent, again after re-entering', () => {
    expect(run(rule, [3, null, null, 7, null])).toEqual([false, true, false, false, true]);
  });

  it('absent at the first run only disarms', () => {
    expect(run(rule, [null, 20, 5, 20])).toEqual([false, false, false, true]);
  });
});

describe('rank_change', () => {
  const rule: AlertRuleSpec = { type: 'rank_change', value: 3, asin: TRACKED };

  it('fires on a move of at least N places either way; not on the next move while still moving; re-arms on a steadier rank', () => {
    expect(run(rule, [10, 7, 3, 3, 6, 5, 9])).toEqual([false, true, false, false, true, false, true]);
  });

  it('entering or leaving the pages read is no move: the rank after an absence is compared with nothing', () => {
    expect(run(rule, [2, null, 20, 21, 30])).toEqual([false, false, false, false, true]);
  });
});

describe('sponsored_change', () => {
  const rule: AlertRuleSpec = { type: 'sponsored_change', value: null, asin: TRACKED };

  it('fires when the tracked ASIN gains or loses a sponsored slot, never for the same state again', () => {
    expect(run(rule, [runPages(4), runPages(4, true), runPages(2, true), runPages(2), runPages(null), runPages(null, true)]))
      .toEqual([false, true, false, true, false, true]);
  });
});

describe('rank rule values', () => {
  it('names what is wrong with a value', () => {
    expect(alertValueProblem('rank_above', 1)).toMatch(/above 1/);
    expect(alertValueProblem('rank_above', 2)).toBeNull();
    expect(alertValueProblem('rank_below', 0)).toMatch(/above 0/);
    expect(alertValueProblem('rank_below', 1001)).toMatch(/at most 1000/);
    expect(alertValueProblem('rank_change', 2.5)).toMatch(/integer/);
    expect(alertValueProblem('rank_change', null)).toMatch(/needs a value/);
    expect(alertValueProblem('sponsored_change', 1)).toMatch(/takes no value/);
  });
});

it('a rank change event names the keyword and the tracked ASIN, keys in the documented order', () => {
  const before = { sponsored: false, organic_rank: 12, observed_at: '2026-01-01T00:00:00.000Z' };
  const after = { observed_at: '2026-01-01T01:00:00.000Z', organic_rank: null, sponsored: false };
  const body = changeEventBody({ event_id: 'e', subscription_id: 3, asin: TRACKED, marketplace: 'com', keyword: 'kettle', rule: { id: 9, type: 'rank_below', value: 10, asin: TRACKED }, before, after });
  expect(Object.keys(body)).toEqual(['event_id', 'kind', 'subscription_id', 'asin', 'marketplace', 'keyword', 'rule', 'before', 'after', 'observed_at']);
  expect(JSON.stringify(body.before)).toBe('{"observed_at":"2026-01-01T00:00:00.000Z","organic_rank":12,"sponsored":false}');
  expect(body.rule).toEqual({ id: 9, type: 'rank_below', value: 10, asin: TRACKED });
});
