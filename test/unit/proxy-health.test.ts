/**
 * Proxy quarantine (worker/identity/proxy-health.ts): the block rate over the last reads of a
 * proxy for a marketplace, the cool-down, one log line per quarantine, the gauge.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../core/metrics.js';
import { HEALTH_WINDOW, MIN_READS_TO_JUDGE, ProxyHealth } from '../../worker/identity/proxy-health.js';
import { captureLogs } from '../support/log-capture.js';

function setUp(maxBlockRate = 0.5) {
  let now = 1_000_000;
  const logs = captureLogs('info');
  const health = new ProxyHealth({ maxBlockRate, cooldownMs: 600_000, logger: logs.logger, now: () => now });
  return { health, logs, advance: (ms: number) => (now += ms) };
}

async function gauge(proxy: string, marketplace: string): Promise<number | undefined> {
  const metric = (await registry.getSingleMetricAsString('retail_source_proxy_quarantined')).split('\n');
  const line = metric.find((l) => l.startsWith(`retail_source_proxy_quarantined{proxy="${proxy}",marketplace="${marketplace}"}`));
  return line ? Number(line.split(' ').at(-1)) : undefined;
}

describe('proxy quarantine', () => {
  it(`judges a proxy only from ${MIN_READS_TO_JUDGE} reads on, and quarantines it once more than the threshold of them were blocked`, async () => {
    const { health, logs } = setUp();
    for (let i = 1; i < MIN_READS_TO_JUDGE; i++) expect(health.record('p:1', 'de', true)).toBe(false);
    expect(health.isQuarantined('p:1', 'de')).toBe(false);
    expect(health.record('p:1', 'de', true)).toBe(true);
    expect(health.isQuarantined('p:1', 'de')).toBe(true);
    expect(health.isQuarantined('p:1', 'com')).toBe(false); // per marketplace
    expect(await gauge('p:1', 'de')).toBe(1);
    // Reads under way when it was taken out do not log it again.
    for (let i = 0; i < 10; i++) health.record('p:1', 'de', true);
    expect(logs.lines().filter((l) => l.msg === 'proxy quarantined')).toEqual([
      expect.objectContaining({ proxy: 'p:1', marketplace: 'de', blocked: MIN_READS_TO_JUDGE, reads: MIN_READS_TO_JUDGE, blockRate: 1, cooldownMs: 600_000 }),
    ]);
  });

  it(`at exactly the threshold it stays; the rate is over the last ${HEALTH_WINDOW} reads only`, () => {
    const { health } = setUp();
    // 10 blocked of 20: 0.5 does not pass 0.5.
    for (let i = 0; i < HEALTH_WINDOW; i++) expect(health.record('p:2', 'com', i % 2 === 1)).toBe(false);
    // 20 good reads push the old blocks out of the window; then 10 blocks in a row are 10 of 20 again.
    for (let i = 0; i < HEALTH_WINDOW; i++) health.record('p:2', 'com', false);
    for (let i = 0; i < HEALTH_WINDOW / 2; i++) expect(health.record('p:2', 'com', true)).toBe(false);
    expect(health.record('p:2', 'com', true)).toBe(true); // 11 of the last 20
  });

  it('comes back after the cool-down with an empty window, logged', async () => {
    const { health, logs, advance } = setUp();
    for (let i = 0; i < MIN_READS_TO_JUDGE; i++) health.record('p:3', 'uk', true);
    advance(599_999);
    expect(health.isQuarantined('p:3', 'uk')).toBe(true);
    advance(1);
    expect(health.isQuarantined('p:3', 'uk')).toBe(false);
    expect(await gauge('p:3', 'uk')).toBe(0);
    expect(logs.lines().some((l) => l.msg === 'proxy back in rotation after its quarantine' && l.proxy === 'p:3')).toBe(true);
    for (let i = 1; i < MIN_READS_TO_JUDGE; i++) expect(health.record('p:3', 'uk', true)).toBe(false);
  });

  it('SOURCE_PROXY_MAX_BLOCK_RATE=1 never quarantines; 0 quarantines at the first block once judged', () => {
    const never = setUp(1).health;
    for (let i = 0; i < 50; i++) expect(never.record('p:4', 'de', true)).toBe(false);
    const strict = setUp(0).health;
    for (let i = 1; i < MIN_READS_TO_JUDGE; i++) strict.record('p:5', 'de', false);
    expect(strict.record('p:5', 'de', true)).toBe(true);
  });
});
