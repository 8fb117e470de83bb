/**
 * The monitor's scheduling arithmetic (core/domain/scheduling.ts): first reads spread over the
 * interval, a fixed grid of reads that skips missed slots, frequency changes applied at once, and
 * the status re-checks of a paused monitor.
 */
import { describe, expect, it } from 'vitest';
import {
  firstReadOffset,
  initialSchedule,
  isReadDue,
  nextDueAfterRead,
  nextWakeAt,
  pausedRecheckAt,
  withInterval,
  type MonitorSchedule,
} from '../../core/domain/scheduling.js';

const HOUR = 3_600_000;
const SIX_HOURS = 6 * HOUR;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('firstReadOffset', () => {
  it('lies within the first interval for every frequency', () => {
    for (const interval of [HOUR, SIX_HOURS, DAY]) {
      for (let id = 1; id <= 1_000; id++) {
        const offset = firstReadOffset(id, interval);
        expect(Number.isInteger(offset)).toBe(true);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(interval);
      }
    }
  });

  it('is the same for the same subscription and interval (the launcher and the workflow agree)', () => {
    expect(firstReadOffset(42, DAY)).toBe(firstReadOffset(42, DAY));
  });

  it('spreads a batch of consecutive ids over the interval instead of bunching them', () => {
    const buckets = new Array<number>(10).fill(0);
    for (let id = 1; id <= 1_000; id++) buckets[Math.floor((firstReadOffset(id, HOUR) / HOUR) * 10)]!++;
    for (const count of buckets) {
      expect(count).toBeGreaterThanOrEqual(90);
      expect(count).toBeLessThanOrEqual(110);
    }
  });
});

describe('initialSchedule', () => {
  it('reads first at the offset into the first interval, re-checks one interval from now', () => {
    expect(initialSchedule({ subscriptionId: 7, intervalMs: HOUR, paused: false }, NOW)).toEqual({
      intervalMs: HOUR, paused: false, nextDueAt: NOW + firstReadOffset(7, HOUR), recheckAt: NOW + HOUR,
    });
  });

  it('keeps the first read the starter chose (a delayed start woken at its first read)', () => {
    const s = initialSchedule({ subscriptionId: 7, intervalMs: DAY, paused: false, firstReadAt: NOW - 5 }, NOW);
    expect(s.nextDueAt).toBe(NOW - 5);
    expect(isReadDue(s, NOW)).toBe(true);
  });

  it('started paused, it wakes for its status re-check, not its read', () => {
    const s = initialSchedule({ subscriptionId: 3, intervalMs: SIX_HOURS, paused: true, firstReadAt: NOW }, NOW);
    expect(nextWakeAt(s)).toBe(NOW + SIX_HOURS);
  });
});

describe('nextDueAfterRead', () => {
  it('a read on time: the next slot is one interval later', () => {
    expect(nextDueAfterRead(NOW, HOUR, NOW)).toBe(NOW + HOUR);
  });

  it('a read that came late keeps the grid (the next read is not pushed back)', () => {
    expect(nextDueAfterRead(NOW, HOUR, NOW + 10 * 60_000)).toBe(NOW + HOUR);
  });

  it('missed runs are skipped, never caught up in a burst', () => {
    // The worker was away for 5.5 intervals: one read now, the next at the following grid slot.
    expect(nextDueAfterRead(NOW, HOUR, NOW + 5.5 * HOUR)).toBe(NOW + 6 * HOUR);
    // Exactly on a later slot: that slot counts as this read's, the next is one interval on.
    expect(nextDueAfterRead(NOW, HOUR, NOW + 3 * HOUR)).toBe(NOW + 4 * HOUR);
  });

  it('is always after now and on the grid, for every frequency', () => {
    for (const interval of [HOUR, SIX_HOURS, DAY]) {
      for (const late of [0, 1, interval - 1, interval, interval + 1, 7 * interval + 3]) {
        const next = nextDueAfterRead(NOW, interval, NOW + late);
        expect(next).toBeGreaterThan(NOW + late);
        expect(next - (NOW + late)).toBeLessThanOrEqual(interval);
        expect((next - NOW) % interval).toBe(0);
      }
    }
  });
});

describe('withInterval (frequency change)', () => {
  const daily: MonitorSchedule = { intervalMs: DAY, paused: false, nextDueAt: NOW + 20 * HOUR, recheckAt: NOW + DAY };

  it('keeps the distance from the previous read, measured with the new interval', () => {
    // Previous read 4 h ago (next due in 20 h of a daily interval); hourly now: due 3 h ago, at once.
    const hourly = withInterval(daily, HOUR, NOW);
    expect(hourly.nextDueAt).toBe(NOW - 3 * HOUR);
    expect(isReadDue(hourly, NOW)).toBe(true);
    expect(hourly.intervalMs).toBe(HOUR);
  });

  it('a longer interval moves the next read later by the difference', () => {
    const s = withInterval({ ...daily, intervalMs: HOUR, nextDueAt: NOW + 30 * 60_000 }, SIX_HOURS, NOW);
    expect(s.nextDueAt).toBe(NOW + 30 * 60_000 + 5 * HOUR);
    expect(isReadDue(s, NOW)).toBe(false);
  });

  it('a paused monitor re-checks no later than one new interval from now', () => {
    const paused = { ...daily, paused: true };
    expect(withInterval(paused, HOUR, NOW).recheckAt).toBe(NOW + HOUR);
    // An earlier re-check already planned stays.
    expect(withInterval({ ...paused, recheckAt: NOW + 60_000 }, HOUR, NOW).recheckAt).toBe(NOW + 60_000);
  });

  it('the same interval again changes nothing', () => {
    expect(withInterval(daily, DAY, NOW + HOUR)).toEqual(daily);
  });

  it('carries the rest of the state along', () => {
    const state = { ...daily, deliveries: 3, run: 2 };
    expect(withInterval(state, HOUR, NOW)).toMatchObject({ deliveries: 3, run: 2 });
  });
});

describe('pause and resume', () => {
  it('a paused monitor wakes for its re-check one interval after pausing, not for a due read', () => {
    const s: MonitorSchedule = { intervalMs: HOUR, paused: true, nextDueAt: NOW - HOUR, recheckAt: pausedRecheckAt(HOUR, NOW) };
    expect(nextWakeAt(s)).toBe(NOW + HOUR);
    expect(isReadDue(s, NOW)).toBe(true); // the re-check finds the read due, and reads if the status allows
  });

  it('a resume re-checks at once; a running monitor wakes for its read', () => {
    const paused: MonitorSchedule = { intervalMs: HOUR, paused: true, nextDueAt: NOW + 10, recheckAt: NOW + HOUR };
    expect(nextWakeAt({ ...paused, recheckAt: NOW })).toBe(NOW);
    expect(nextWakeAt({ ...paused, paused: false })).toBe(NOW + 10);
  });

  it('a read missed while paused is one read after resuming, then the grid goes on', () => {
    // Paused for 3.2 intervals past the due read: resumed, it reads once, next on the grid.
    const resumedAt = NOW + 3.2 * HOUR;
    expect(isReadDue({ nextDueAt: NOW }, resumedAt)).toBe(true);
    expect(nextDueAfterRead(NOW, HOUR, resumedAt)).toBe(NOW + 4 * HOUR);
  });
});
