import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';

describe('config', () => {
  it('defaults are the specification values (operations-contract.md)', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.TEMPORAL_NAMESPACE).toBe('default');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.TEMPORAL_ADDRESS).toBeUndefined();
    expect(c.BROWSER_WS_ENDPOINTS).toEqual([]);
    expect(c.DATA_DIR.endsWith('/data')).toBe(true);
    expect(c.MONITORING_INTERVALS).toEqual({ hourly: 3_600_000, every_6h: 21_600_000, daily: 86_400_000 });
    expect(c.WEBHOOK_RETRY_DELAYS).toEqual([60_000, 300_000, 900_000]);
    expect(c.WEBHOOK_TIMEOUT).toBe(10_000);
    expect(c.WEBHOOK_ALLOWLIST).toEqual([]);
    expect(c.REUSE_WINDOW).toBe(3_600_000);
    expect(c.LIVE_BUDGET).toBe(60_000);
  });

  it('parses durations, lists and interval tables', () => {
    const c = loadConfig({
      MONITORING_INTERVALS: 'hourly=90s,every_6h=5m,daily=1h', WEBHOOK_RETRY_DELAYS: '1s, 2s,3s', WEBHOOK_ALLOWLIST: 'localhost:9000, receiver',
      BROWSER_WS_ENDPOINTS: 'ws://a:1/x,ws://b:2/y', REUSE_WINDOW: '5m', LIVE_BUDGET: '10s', RETAIL_SOURCE_ORIGIN: 'http://127.0.0.1:8080',
    });
    expect(c.MONITORING_INTERVALS).toEqual({ hourly: 90_000, every_6h: 300_000, daily: 3_600_000 });
    expect(c.WEBHOOK_RETRY_DELAYS).toEqual([1000, 2000, 3000]);
    expect(c.WEBHOOK_ALLOWLIST).toEqual(['localhost:9000', 'receiver']);
    expect(c.BROWSER_WS_ENDPOINTS).toEqual(['ws://a:1/x', 'ws://b:2/y']);
    expect(c.REUSE_WINDOW).toBe(300_000);
    expect(c.LIVE_BUDGET).toBe(10_000);
  });

  it('WEBHOOK_PORTS is a list of ports (default 80, 443); webhook slots default to 64, 8 per account', () => {
    const c = loadConfig({});
    expect(c.WEBHOOK_PORTS).toEqual([80, 443]);
    expect([c.WEBHOOK_SLOTS, c.WEBHOOK_ACCOUNT_SLOTS]).toEqual([64, 8]);
    expect(loadConfig({ WEBHOOK_PORTS: '443, 8443' }).WEBHOOK_PORTS).toEqual([443, 8443]);
    for (const bad of ['http', '0', '65536', '', '80;443']) expect(() => loadConfig({ WEBHOOK_PORTS: bad }), bad).toThrow(/WEBHOOK_PORTS/);
    expect(() => loadConfig({ WEBHOOK_ACCOUNT_SLOTS: '0' })).toThrow(/WEBHOOK_ACCOUNT_SLOTS/);
  });

  it('names every invalid variable', () => {
    expect(() => loadConfig({ REUSE_WINDOW: 'soon', PORT: 'x', MONITORING_INTERVALS: 'weekly=1h' })).toThrow(ConfigError);
    try {
      loadConfig({ REUSE_WINDOW: 'soon', PORT: 'x' });
    } catch (error) {
      expect(String(error)).toContain('REUSE_WINDOW');
      expect(String(error)).toContain('PORT');
    }
  });
});
