/**
 * Scheduling arithmetic of monitoring subscriptions, as pure functions of times in epoch ms and
 * intervals in ms. The `monitorSubscription` workflow plans its timers with them (on workflow
 * time) and the API uses them to delay a new monitor's start until its first read.
 */

/**
 * Offset of a subscription's first read within its first interval, ms: the fractional part of
 * id × golden ratio, which spreads consecutive ids evenly over the interval (a batch of adds
 * neither reads all at once nor re-reads all at once every interval).
 */
export function firstReadOffset(subscriptionId: number, intervalMs: number): number {
  return Math.floor(intervalMs * ((subscriptionId * 0.6180339887498949) % 1));
}
