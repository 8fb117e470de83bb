/**
 * A value computed at most once per interval in this process, whatever the number of callers:
 * callers within `ttlMs` of the last computation get its result, concurrent callers while it runs
 * await the same computation (single flight). A failed computation is not kept: its callers get
 * the error, the next caller computes again. Used for the unauthenticated aggregates (marketplace
 * status, the database gauges of /metrics), so their cost does not grow with callers or aliases.
 */
export class IntervalCache<T> {
  private value: { at: number; result: T } | undefined;
  private inFlight: Promise<T> | undefined;

  /**
   * @param ttlMs how long a computed value is served (ms); 0 → only concurrent callers share one.
   * @param compute the computation (e.g. SQL aggregates).
   * @param now the clock (epoch ms); `Date.now` by default.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly compute: () => Promise<T>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The value computed less than `ttlMs` ago, or the one being computed, or a new computation. */
  get(): Promise<T> {
    if (this.value && this.now() - this.value.at < this.ttlMs) return Promise.resolve(this.value.result);
    this.inFlight ??= (async () => {
      try {
        const result = await this.compute();
        this.value = { at: this.now(), result };
        return result;
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }
}
