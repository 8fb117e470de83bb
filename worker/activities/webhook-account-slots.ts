/**
 * Per-account shares of the webhook activity slots in one worker process: an account's receiver
 * that answers slowly, or not at all until WEBHOOK_TIMEOUT, holds at most WEBHOOK_ACCOUNT_SLOTS of
 * them; its further deliveries wait (the attempt is retried by Temporal a little later, holding no
 * slot meanwhile) while other accounts' deliveries keep the remaining slots.
 */
export class AccountSlots {
  private readonly inUse = new Map<number, number>();

  /** @param perAccount deliveries one account may have under way at once (≥ 1). */
  constructor(private readonly perAccount: number) {}

  /** Takes one of the account's slots; @returns its release function, or null when all are taken. */
  tryAcquire(accountId: number): (() => void) | null {
    const used = this.inUse.get(accountId) ?? 0;
    if (used >= this.perAccount) return null;
    this.inUse.set(accountId, used + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inUse.get(accountId) ?? 1) - 1;
      if (left > 0) this.inUse.set(accountId, left);
      else this.inUse.delete(accountId);
    };
  }

  /** Deliveries of the account under way now. */
  used(accountId: number): number {
    return this.inUse.get(accountId) ?? 0;
  }
}
