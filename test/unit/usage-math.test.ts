/**
 * Usage counter arithmetic (api-spec.md "Other result objects": Usage — per UTC day requests,
 * tasks and cost, days without usage as zeros; "Appendix endpoints": usage defaults to the 29 days
 * before date_to; "Limits": usage range at most 366 days): UTC days, the counts one process
 * gathers before writing them, and totals exact to the micro-dollar.
 */
import { describe, expect, it } from 'vitest';
import {
  addDays, addIncrement, daysBetween, deltaCost, mergeDelta, sumUsage, usageKey, utcDay, writeOrder, type PendingUsage,
} from '../../core/domain/usage-counts.js';

describe('UTC days', () => {
  it('a request is counted on its UTC day, whatever the local time', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02');
    expect(utcDay(new Date('2026-03-01T23:30:00-05:00'))).toBe('2026-03-02');
  });

  it('moves across months, years and leap days', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2026-04-30', -29)).toBe('2026-04-01');
  });

  it('the default usage range is 30 days (date_from = date_to − 29)', () => {
    expect(daysBetween(addDays('2026-04-30', -29), '2026-04-30') + 1).toBe(30);
  });

  it('a 366-day range spans a leap year exactly', () => {
    expect(daysBetween('2028-01-01', '2028-12-31')).toBe(365);
    expect(daysBetween('2027-06-01', '2028-06-01')).toBe(366);
    expect(daysBetween('2026-05-02', '2026-05-01')).toBe(-1);
    expect(daysBetween('2026-05-01', '2026-05-01')).toBe(0);
  });
});

describe('pending counts', () => {
  it('each request adds one request, its tasks and its cost to the counter of (account, day, endpoint)', () => {
    const pending: PendingUsage = new Map();
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'task_post', tasks: 3, cost: 0.0045 });
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'task_post', tasks: 1, cost: 0.003 });
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'user_data', tasks: 1, cost: 0 });
    addIncrement(pending, { accountId: 1, day: '2026-05-02', endpoint: 'task_post', tasks: 2, cost: 0.003 });
    expect(pending.size).toBe(3);
    const day1 = pending.get(usageKey({ accountId: 1, day: '2026-05-01', endpoint: 'task_post' }))!;
    expect(day1).toEqual({ accountId: 1, day: '2026-05-01', endpoint: 'task_post', requests: 2, tasks: 4, micros: 7500 });
    expect(deltaCost(day1)).toBe(0.0075);
  });

  it('a thousand 0.0015 USD task_post requests add up to exactly 1.5 USD', () => {
    const pending: PendingUsage = new Map();
    for (let i = 0; i < 1000; i++) addIncrement(pending, { accountId: 7, day: '2026-05-01', endpoint: 'task_post', tasks: 1, cost: 0.0015 });
    const [delta] = [...pending.values()];
    expect(delta!.requests).toBe(1000);
    expect(deltaCost(delta!)).toBe(1.5);
  });

  it('task counts are whole and never negative', () => {
    const pending: PendingUsage = new Map();
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'x', tasks: 2.9, cost: 0 });
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'x', tasks: -5, cost: 0 });
    expect([...pending.values()][0]).toMatchObject({ requests: 2, tasks: 2 });
  });

  it('are written in (account, day, endpoint) order, so concurrent writers lock rows alike', () => {
    const pending: PendingUsage = new Map();
    for (const [accountId, day, endpoint] of [[2, '2026-05-01', 'live'], [1, '2026-05-02', 'history'], [1, '2026-05-01', 'task_post'], [1, '2026-05-01', 'live']] as const) {
      addIncrement(pending, { accountId, day, endpoint, tasks: 1, cost: 0.001 });
    }
    expect(writeOrder(pending).map(usageKey)).toEqual(['1|2026-05-01|live', '1|2026-05-01|task_post', '1|2026-05-02|history', '2|2026-05-01|live']);
  });

  it('a batch that could not be written goes back, added to what was counted since', () => {
    const pending: PendingUsage = new Map();
    addIncrement(pending, { accountId: 1, day: '2026-05-01', endpoint: 'live', tasks: 1, cost: 0.004 });
    const failed = writeOrder(pending);
    const since: PendingUsage = new Map();
    addIncrement(since, { accountId: 1, day: '2026-05-01', endpoint: 'live', tasks: 1, cost: 0.004 });
    for (const d of failed) mergeDelta(since, d);
    expect([...since.values()]).toEqual([{ accountId: 1, day: '2026-05-01', endpoint: 'live', requests: 2, tasks: 2, micros: 8000 }]);
    const empty: PendingUsage = new Map();
    for (const d of failed) mergeDelta(empty, d);
    expect([...empty.values()]).toEqual(failed);
  });
});

describe('totals', () => {
  it('sums requests, tasks and cost, the cost exact to the micro-dollar', () => {
    expect(sumUsage([
      { requests: 1, tasks: 3, cost: 0.1 },
      { requests: 2, tasks: 0, cost: 0.2 },
      { requests: 0, tasks: 0, cost: 0 },
    ])).toEqual({ requests: 3, tasks: 3, cost: 0.3 });
  });

  it('no rows are all zeros (days without usage)', () => {
    expect(sumUsage([])).toEqual({ requests: 0, tasks: 0, cost: 0 });
  });
});
