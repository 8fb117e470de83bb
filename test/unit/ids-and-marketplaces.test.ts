import { describe, expect, it } from 'vitest';
import { isUuid, newTaskId } from '../../core/ids.js';
import { MARKETPLACES, canonicalProductUrl, resolveMarketplace } from '../../core/marketplaces.js';

describe('task ids', () => {
  it('are UUIDs whose first 8 characters are the UTC MMDDHHmm of creation', () => {
    const id = newTaskId(new Date(Date.UTC(2026, 0, 5, 7, 9)));
    expect(id.slice(0, 8)).toBe('01050709');
    expect(isUuid(id)).toBe(true);
    expect(new Set(Array.from({ length: 100 }, () => newTaskId())).size).toBe(100);
  });
});

describe('marketplaces', () => {
  it('has the 12 marketplaces with their currencies', () => {
    expect(MARKETPLACES.map((m) => `${m.code}:${m.currency}`)).toEqual([
      'com:USD', 'uk:GBP', 'de:EUR', 'fr:EUR', 'it:EUR', 'es:EUR', 'ca:CAD', 'jp:JPY', 'in:INR', 'mx:MXN', 'br:BRL', 'au:AUD',
    ]);
  });

  it('resolves codes and aliases case-insensitively and refuses others', () => {
    expect(resolveMarketplace('US')?.code).toBe('com');
    expect(resolveMarketplace('usa')?.code).toBe('com');
    expect(resolveMarketplace('GB')?.code).toBe('uk');
    expect(resolveMarketplace('De')?.domain).toBe('www.amazon.de');
    expect(resolveMarketplace('xx')).toBeUndefined();
    expect(resolveMarketplace('toString')).toBeUndefined();
  });

  it('builds the canonical product URL', () => {
    expect(canonicalProductUrl(resolveMarketplace('jp')!, 'b00abc1234')).toBe('https://www.amazon.co.jp/dp/B00ABC1234');
  });
});
