/**
 * The availability classification of GET /v1/appendix/status at and around each documented
 * threshold: enough reads, the operational and degraded success rates, and the slow median.
 */
import { describe, expect, it } from 'vitest';
import {
  DEGRADED_SUCCESS_RATE,
  MIN_READS_24H,
  OPERATIONAL_SUCCESS_RATE,
  SLOW_MEDIAN_MINUTES,
  classifyMarketplace,
} from '../../api/services/status.js';

const operational = { available: true, status: 'operational' };
const degraded = { available: true, status: 'degraded' };
const unavailable = { available: false, status: 'unavailable' };
const unknown = { available: null, status: 'unknown' };

describe('classifyMarketplace', () => {
  it('the thresholds are the documented values', () => {
    expect([MIN_READS_24H, OPERATIONAL_SUCCESS_RATE, DEGRADED_SUCCESS_RATE, SLOW_MEDIAN_MINUTES]).toEqual([10, 0.95, 0.5, 30]);
  });

  it('fewer than 10 reads is not enough data, whatever the rate; 10 reads is', () => {
    expect(classifyMarketplace({ reads: 0, successRate: null, medianMinutes: null })).toEqual(unknown);
    expect(classifyMarketplace({ reads: 9, successRate: 1, medianMinutes: 1 })).toEqual(unknown);
    expect(classifyMarketplace({ reads: 9, successRate: 0, medianMinutes: null })).toEqual(unknown);
    expect(classifyMarketplace({ reads: 10, successRate: 1, medianMinutes: 1 })).toEqual(operational);
    expect(classifyMarketplace({ reads: 10, successRate: 0, medianMinutes: null })).toEqual(unavailable);
  });

  it('operational from a 0.95 success rate; just below is degraded', () => {
    expect(classifyMarketplace({ reads: 100, successRate: 0.95, medianMinutes: 2 })).toEqual(operational);
    expect(classifyMarketplace({ reads: 100, successRate: 0.9499, medianMinutes: 2 })).toEqual(degraded);
    expect(classifyMarketplace({ reads: 100, successRate: 1, medianMinutes: null })).toEqual(operational);
  });

  it('degraded from a 0.5 success rate; just below is unavailable', () => {
    expect(classifyMarketplace({ reads: 100, successRate: 0.5, medianMinutes: 2 })).toEqual(degraded);
    expect(classifyMarketplace({ reads: 100, successRate: 0.4999, medianMinutes: 2 })).toEqual(unavailable);
    expect(classifyMarketplace({ reads: 100, successRate: 0, medianMinutes: 2 })).toEqual(unavailable);
  });

  it('a median above 30 minutes turns operational into degraded, and nothing else', () => {
    expect(classifyMarketplace({ reads: 100, successRate: 1, medianMinutes: 30 })).toEqual(operational);
    expect(classifyMarketplace({ reads: 100, successRate: 1, medianMinutes: 30.01 })).toEqual(degraded);
    expect(classifyMarketplace({ reads: 100, successRate: 0.7, medianMinutes: 120 })).toEqual(degraded);
    expect(classifyMarketplace({ reads: 100, successRate: 0.3, medianMinutes: 120 })).toEqual(unavailable);
    expect(classifyMarketplace({ reads: 5, successRate: 1, medianMinutes: 120 })).toEqual(unknown);
  });
});
