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
