/**
 * USD arithmetic of charges, refunds, envelopes and usage counters. Amounts are USD numbers;
 * balances and ledger amounts are stored as NUMERIC(18,6), so every amount is rounded to 6
 * decimals (micro-dollars) and sums are taken in whole micro-dollars, which add exactly.
 * Pure: no I/O, no imports.
 */

/** Micro-dollars in one USD (NUMERIC(18,6): 6 decimals). */
export const MICROS_PER_USD = 1_000_000;

/** `amount` USD as whole micro-dollars (rounded half up on the 6th decimal, as `Math.round`). */
export function toMicros(amount: number): number {
  return Math.round(amount * MICROS_PER_USD);
}

/** Whole micro-dollars as USD. */
export function fromMicros(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** `amount` USD rounded to 6 decimals, so that floating sums print cleanly (envelope `cost`). */
export function roundUsd(amount: number): number {
  return fromMicros(toMicros(amount));
}

/** `amount` USD as the exact decimal text stored in NUMERIC(18,6), e.g. `0.0015` → `'0.001500'`. */
export function usdText(amount: number): string {
  return roundUsd(amount).toFixed(6);
}

/** The sum of `amounts` USD, each rounded to 6 decimals and added in micro-dollars (exact). */
export function sumUsd(amounts: Iterable<number>): number {
  let micros = 0;
  for (const amount of amounts) micros += toMicros(amount);
  return fromMicros(micros);
}

/**
 * Whether a balance of `balance` USD pays `amount` USD (api-spec.md "Errors", 40200: the balance
 * must cover the cost; a balance exactly equal to the cost covers it). Compared in micro-dollars.
 */
export function covers(balance: number, amount: number): boolean {
  return toMicros(balance) >= toMicros(amount);
}

/**
 * The balance after charging `amount` USD to `balance` USD, or `null` when the balance does not
 * cover it (40200): a balance never goes below zero. The rule of the ledger's conditional UPDATE
 * (`balance >= amount`), in micro-dollars.
 */
export function balanceAfterCharge(balance: number, amount: number): number | null {
  if (!covers(balance, amount)) return null;
  return fromMicros(toMicros(balance) - toMicros(amount));
}

/** The balance after crediting `amount` USD (a refund or a top-up) to `balance` USD. */
export function balanceAfterCredit(balance: number, amount: number): number {
  return fromMicros(toMicros(balance) + toMicros(amount));
}

