/**
 * Scheduling arithmetic of monitoring subscriptions, as pure functions of times in epoch ms and
 * intervals in ms (MONITORING_INTERVALS[frequency]). The `monitorSubscription` workflow plans its
 * timers with them on workflow time (so they must stay deterministic: no clock, no randomness;
 * `now` is always passed in), and the monitor launcher uses them to delay a new monitor's start
 * until its first read.
 *
 * The rules: reads keep to a fixed grid of `intervalMs` from the first read (a late read does not
 * shift the grid); runs missed while the worker was away are skipped, never caught up in a burst; a
 * paused monitor re-checks the database status once per interval, at once on a resume; a new
 * interval applies at once, keeping the distance from the previous read.
 */

/** The timing part of a monitor's carried state (`MonitorState`). */
export interface MonitorSchedule {
  /** Time between reads, ms. */
  intervalMs: number;
  /** No reads while paused, only status re-checks at `recheckAt`. */
  paused: boolean;
  /** When the next read is due, epoch ms. */
  nextDueAt: number;
  /** While paused: when the database status is checked again, epoch ms. */
  recheckAt: number;
}

/**
 * Offset of a subscription's first read within its first interval, ms: the fractional part of
 * id × golden ratio, which spreads consecutive ids evenly over the interval (a batch of adds
 * neither reads all at once nor re-reads all at once every interval).
 */
export function firstReadOffset(subscriptionId: number, intervalMs: number): number {
  return Math.floor(intervalMs * ((subscriptionId * 0.6180339887498949) % 1));
}

/**
 * The schedule of a monitor that starts now: its first read at `firstReadAt` when the starter
 * chose it, else `firstReadOffset` into the first interval; a first status re-check (should it
 * start paused) one interval from now.
 */
export function initialSchedule(
  start: { subscriptionId: number; intervalMs: number; paused: boolean; firstReadAt?: number },
  now: number,
): MonitorSchedule {
  return {
    intervalMs: start.intervalMs,
    paused: start.paused,
    nextDueAt: start.firstReadAt ?? now + firstReadOffset(start.subscriptionId, start.intervalMs),
    recheckAt: now + start.intervalMs,
  };
}

/** When the monitor next has something to do: its status re-check while paused, else its next read. */
export function nextWakeAt(schedule: MonitorSchedule): number {
  return schedule.paused ? schedule.recheckAt : schedule.nextDueAt;
}

/** Whether a read is due at `now` (paused or not: a tick checks the status before reading). */
export function isReadDue(schedule: Pick<MonitorSchedule, 'nextDueAt'>, now: number): boolean {
  return schedule.nextDueAt <= now;
}

/**
 * The next read after the one due at `nextDueAt` was done (or failed) at `now`: the first slot of
 * the grid after now. Slots missed meanwhile are skipped, so a monitor that was away for hours
 * reads once, not once per missed interval.
 */
export function nextDueAfterRead(nextDueAt: number, intervalMs: number, now: number): number {
  const behind = Math.max(0, now - nextDueAt);
  return nextDueAt + (Math.floor(behind / intervalMs) + 1) * intervalMs;
}

/**
 * A new interval (frequency change): the next read keeps its distance from the previous read,
 * measured with the new interval (if that moment has passed, the read is due at once); a pending
 * re-check comes no later than one new interval from now. An unchanged interval changes nothing.
 */
export function withInterval<S extends MonitorSchedule>(schedule: S, intervalMs: number, now: number): S {
  if (intervalMs === schedule.intervalMs) return schedule;
  return {
    ...schedule,
    nextDueAt: schedule.nextDueAt + intervalMs - schedule.intervalMs,
    recheckAt: Math.min(schedule.recheckAt, now + intervalMs),
    intervalMs,
  };
}

/** When a monitor paused at `now` re-checks its status: one interval later. */
export function pausedRecheckAt(intervalMs: number, now: number): number {
  return now + intervalMs;
}
