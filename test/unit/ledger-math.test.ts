/**
 * Balance arithmetic of the ledger (api-spec.md "Errors" 40200: the balance must cover the cost;
 * "Limits" charging rules: 40402 and 50301 are refunded): amounts stored as NUMERIC(18,6), so
 * every amount is rounded to 6 decimals and sums are exact; a balance never goes below zero.
 */
import { describe, expect, it } from 'vitest';
import {
  balanceAfterCharge, balanceAfterCredit, covers, fromMicros, roundUsd, sumUsd, toMicros, usdText,
} from '../../core/domain/money.js';

describe('6-decimal amounts', () => {
  it('USD text as stored in NUMERIC(18,6)', () => {
    expect(usdText(0.0015)).toBe('0.001500');
    expect(usdText(1)).toBe('1.000000');
    expect(usdText(0)).toBe('0.000000');
    expect(usdText(12.5)).toBe('12.500000');
  });

  it('amounts below a micro-dollar round to 6 decimals, half up', () => {
    expect(usdText(0.0000004)).toBe('0.000000');
    expect(usdText(0.0000005)).toBe('0.000001');
    expect(usdText(0.0000015)).toBe('0.000002');
    expect(roundUsd(0.12345678)).toBe(0.123457);
  });

  it('floating sums are exact once summed in micro-dollars', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumUsd([0.1, 0.2])).toBe(0.3);
    expect(0.0015 * 3).not.toBe(0.0045);
    expect(sumUsd([0.0015, 0.0015, 0.0015])).toBe(0.0045);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(sumUsd([])).toBe(0);
  });

  it('micro-dollars convert both ways', () => {
    expect(toMicros(0.0015)).toBe(1500);
    expect(toMicros(1)).toBe(1_000_000);
    expect(fromMicros(1500)).toBe(0.0015);
  });
});

describe('charges', () => {
  it('a charge takes the cost off the balance', () => {
    expect(balanceAfterCharge(1, 0.0015)).toBe(0.9985);
    expect(balanceAfterCharge(0.003, 0.0015)).toBe(0.0015);
  });

  it('a balance equal to the cost covers it and ends at exactly 0', () => {
    expect(covers(0.0015, 0.0015)).toBe(true);
    expect(balanceAfterCharge(0.0015, 0.0015)).toBe(0);
  });

  it('insufficient balance: the charge is refused (40200) and the balance never goes negative', () => {
    expect(covers(0.0014, 0.0015)).toBe(false);
    expect(balanceAfterCharge(0.0014, 0.0015)).toBeNull();
    expect(balanceAfterCharge(0, 0.001)).toBeNull();
    // high priority on a balance that pays normal priority only
    expect(balanceAfterCharge(0.002, 0.003)).toBeNull();
    expect(balanceAfterCharge(0.002, 0.0015)).toBe(0.0005);
  });

  it('charged in turn, 0.004 USD pays two task_post tasks of 0.0015 and refuses the third', () => {
    let balance = 0.004;
    const outcomes: (number | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const after = balanceAfterCharge(balance, 0.0015);
      outcomes.push(after);
      if (after !== null) balance = after;
    }
    expect(outcomes).toEqual([0.0025, 0.001, null]);
    expect(balance).toBe(0.001);
  });

  it('ten charges of 0.1 from 1 USD leave exactly 0 (not a floating remainder)', () => {
    let balance = 1;
    for (let i = 0; i < 10; i++) balance = balanceAfterCharge(balance, 0.1)!;
    expect(balance).toBe(0);
    expect(balanceAfterCharge(balance, 0.000001)).toBeNull();
  });
});

describe('credits (refunds and top-ups)', () => {
  it('a refund of a 40402 or 50301 task restores the balance before its charge', () => {
    const charged = balanceAfterCharge(0.5, 0.004)!;
    expect(charged).toBe(0.496);
    expect(balanceAfterCredit(charged, 0.004)).toBe(0.5);
  });

  it('a top-up adds exactly', () => {
    expect(balanceAfterCredit(0.1, 0.2)).toBe(0.3);
    expect(balanceAfterCredit(0, 25)).toBe(25);
  });
});
