/**
 * A counting semaphore whose waiters can leave the queue (AbortSignal) or be rejected all at once
 * (shutdown). p-limit has no per-waiter cancellation, which reads need.
 */

interface Waiter {
  grant: () => void;
  reject: (error: Error) => void;
}

/** Hands out at most `capacity` permits at a time, first come first served. */
export class Semaphore {
  private held = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** Permits currently held. */
  get active(): number {
    return this.held;
  }

  /** Callers waiting for a permit. */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Waits for a permit. Resolves to its release function (idempotent).
   * @param signal rejects with `onAbort()` and leaves the queue when it fires while waiting.
   */
  acquire(signal?: AbortSignal, onAbort: () => Error = () => new Error('aborted')): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(onAbort());
    if (this.held < this.capacity) {
      this.held += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const abort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(onAbort());
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', abort);
          resolve(this.releaser());
        },
        reject: (error) => {
          signal?.removeEventListener('abort', abort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Rejects every waiter with `error` (held permits are unaffected). */
  rejectAll(error: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The permit passes straight to the next waiter; `held` stays the same.
      if (next) next.grant();
      else this.held -= 1;
    };
  }
}
