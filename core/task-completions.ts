/**
 * News, within one process, of the tasks a read completed: the worker's read activity tells
 * (`completed`) as soon as it has stored the observation and finished the task in the database;
 * an API of the same process (`npm start`) waiting for that task (a live read) answers then,
 * instead of when the task's workflow has closed and the client has heard of it, which comes
 * later (the workflow's last task, then the result's long poll). The workflow's end stays the
 * answer wherever no news comes: an API and a worker in different processes, a read that failed
 * (the workflow fails the task), a task finished by another worker.
 */

/** Completed tasks remembered for a wait that starts after the news came (a read faster than the start's answer). */
const REMEMBERED = 1_000;

/** In-process news of completed tasks (one per process; the worker tells, the API listens). */
export class TaskCompletions {
  private readonly waiting = new Map<string, Set<() => void>>();
  /** The last REMEMBERED task ids told, oldest first (a Set keeps insertion order). */
  private readonly recent = new Set<string>();

  /**
   * Tells that task `taskId` is finished in the database (its row holds its final status code).
   * Call only after the statement that finished it has committed.
   */
  completed(taskId: string): void {
    this.recent.add(taskId);
    if (this.recent.size > REMEMBERED) this.recent.delete(this.recent.values().next().value!);
    const waiters = this.waiting.get(taskId);
    if (!waiters) return;
    this.waiting.delete(taskId);
    for (const wake of waiters) wake();
  }

  /**
   * Waits for news of `taskId`: resolves when `completed(taskId)` is told (at once when it was told
   * lately); never rejects. `signal` ends the wait: the promise then stays pending and is dropped.
   */
  wait(taskId: string, signal: AbortSignal): Promise<void> {
    if (this.recent.has(taskId)) return Promise.resolve();
    return new Promise((resolve) => {
      if (signal.aborted) return;
      const waiters = this.waiting.get(taskId) ?? new Set();
      this.waiting.set(taskId, waiters);
      const wake = (): void => {
        signal.removeEventListener('abort', drop);
        resolve();
      };
      const drop = (): void => {
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(taskId) === waiters) this.waiting.delete(taskId);
      };
      waiters.add(wake);
      signal.addEventListener('abort', drop, { once: true });
    });
  }

  /** Waits that have not ended (for tests and metrics). */
  get pending(): number {
    let n = 0;
    for (const waiters of this.waiting.values()) n += waiters.size;
    return n;
  }
}
