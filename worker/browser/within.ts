/** Longest wait for a page, context or spare to close before it is counted as gone, ms. */
export const CLOSE_TIMEOUT_MS = 5_000;

/** Waits for `promise` to settle, or `ms` at most; never rejects. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([promise.then(() => undefined, () => undefined), timeout]);
  clearTimeout(timer);
}
