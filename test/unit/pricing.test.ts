/**
 * The price table and the price of each charged operation (api-spec.md "Limits": prices reported
 * in user_data `rates`; charging rules; "Product endpoints": priority 2 is processed first and
 * costs more; "Errors": 40600 for a feature the plan lacks).
 */
import { describe, expect, it } from 'vitest';
import { sumUsd } from '../../core/domain/money.js';
import { PLANS, planOf, searchTaskPrice, taskPostPrice } from '../../core/domain/pricing.js';

const standard = PLANS.standard!.rates;

describe('price table', () => {
  it('standard plan: task_post 0.0015, high priority 0.003, live 0.004, history 0.0005 per element, monitoring 0.001 per observation (USD)', () => {
    expect(standard).toEqual({
      task_post: 0.0015, task_post_high: 0.003, live: 0.004, history: 0.0005, monitoring: 0.001,
      search: 0.003, search_high: 0.006, search_live: 0.008, search_monitoring: 0.002,
    });
  });

  it('every plan prices a search results page at twice its product task, live and monitoring prices (search-page-contract.md "API")', () => {
    for (const plan of Object.values(PLANS)) {
      const r = plan.rates;
      expect([r.search, r.search_high, r.search_live, r.search_monitoring], plan.name)
        .toEqual([r.task_post * 2, r.task_post_high * 2, r.live * 2, r.monitoring * 2].map((usd) => Math.round(usd * 1e6) / 1e6));
    }
    expect(PLANS.basic!.rates.search).toBe(0.0024);
    expect(PLANS.business!.rates.search_monitoring).toBe(0.0014);
  });

  it('a search task costs its page rate times the pages posted, exactly', () => {
    expect(searchTaskPrice(standard, 1, 1)).toBe(0.003);
    expect(searchTaskPrice(standard, 1, 3)).toBe(0.009);
    expect(searchTaskPrice(standard, 2, 5)).toBe(0.03);
    expect(searchTaskPrice(PLANS.basic!.rates, 1, 3)).toBe(0.0072);
    expect(sumUsd([1, 2, 3, 4, 5].map((pages) => searchTaskPrice(PLANS.business!.rates, 1, pages)))).toBe(0.03);
  });

  it('every plan charges more for high priority than for normal priority', () => {
    for (const plan of Object.values(PLANS)) {
      expect(taskPostPrice(plan.rates, 2), plan.name).toBeGreaterThan(taskPostPrice(plan.rates, 1));
    }
  });

  it('task_post costs the normal rate at priority 1 and the high rate at priority 2', () => {
    expect(taskPostPrice(standard, 1)).toBe(0.0015);
    expect(taskPostPrice(standard, 2)).toBe(0.003);
    expect(taskPostPrice(PLANS.business!.rates, 1)).toBe(0.001);
    expect(taskPostPrice(PLANS.business!.rates, 2)).toBe(0.002);
  });

  it('the basic plan has neither live nor high priority (40600); standard and business have both', () => {
    expect(PLANS.basic!.features).toEqual({ live: false, highPriority: false });
    expect(PLANS.standard!.features).toEqual({ live: true, highPriority: true });
    expect(PLANS.business!.features).toEqual({ live: true, highPriority: true });
  });

  it('an unknown plan name is priced as standard', () => {
    expect(planOf('standard')).toBe(PLANS.standard);
    expect(planOf('business')).toBe(PLANS.business);
    expect(planOf('no-such-plan')).toBe(PLANS.standard);
    expect(planOf('')).toBe(PLANS.standard);
  });

  it('default rate limits per minute grow with the plan', () => {
    expect([PLANS.basic!, PLANS.standard!, PLANS.business!].map((p) => [p.requestsPerMinute, p.tasksPerMinute])).toEqual([[120, 1200], [600, 6000], [2000, 20000]]);
  });
});

describe('cost of a request (envelope `cost`: the sum of its tasks)', () => {
  it('task_post of three normal and one high priority task costs 0.0075 USD, exactly', () => {
    const costs = [1, 1, 1, 2].map((p) => taskPostPrice(standard, p as 1 | 2));
    expect(sumUsd(costs)).toBe(0.0075);
  });

  it('history is charged per body element: 3 elements cost 0.0015 USD', () => {
    expect(sumUsd([standard.history, standard.history, standard.history])).toBe(0.0015);
  });

  it('tasks answered 40402 or 50301 are not charged: their cost 0 does not count', () => {
    // task_post of 3 where the second is refunded (50301): 2 × 0.0015.
    expect(sumUsd([standard.task_post, 0, standard.task_post])).toBe(0.003);
  });

  it('8 task_post tasks, one live and 100 monitoring deliveries costs 0.116 USD', () => {
    const costs = [...Array(8).fill(standard.task_post), standard.live, ...Array(100).fill(standard.monitoring)];
    expect(sumUsd(costs)).toBe(0.116);
  });
});
