/**
 * X-Forwarded-For is believed only behind the proxies TRUST_PROXY declares (operations-contract.md;
 * core/config.ts). Without it the client is the connection's peer: a forged header neither escapes
 * the access-request limit (5 per hour per IP address, api-spec.md "Limits") nor changes the
 * address that is stored and logged. With TRUST_PROXY=n the client is the n-th address from the
 * right, the one the outermost trusted proxy appended; what a client wrote before it is ignored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';

let app: TestApp | undefined;
let logs: CapturedLogs;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  logs = captureLogs('info');
  app = await startTestApp({ database: 'pglite', env, logger: logs.logger });
  return app;
}

/** POSTs an access request with `forwardedFor` as X-Forwarded-For; returns the HTTP status. */
async function submit(forwardedFor: string, email = 'ada@example.com'): Promise<number> {
  const res = await fetch(`${app!.url}/v1/public/access_request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ email }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The client address of the logged line of each access request, in order. */
function loggedAddresses(): string[] {
  return logs.lines().filter((l) => l.msg === 'request' && l.req?.url === '/v1/public/access_request').map((l) => l.req.ip);
}

/** The addresses stored with the access requests, in order. */
async function storedAddresses(): Promise<string[]> {
  return (await app!.prisma.accessRequest.findMany({ orderBy: { id: 'asc' }, select: { ip: true } })).map((r) => r.ip);
}

const PEER = /^(::ffff:)?127\.0\.0\.1$/;

describe('without TRUST_PROXY', () => {
  it('a forged X-Forwarded-For does not escape the limit: the sixth request of the hour from one peer answers 429', async () => {
    await start();
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) statuses.push(await submit(`198.51.100.${i}`));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('the stored and logged client address is the peer, not the header', async () => {
    await start();
    expect(await submit('198.51.100.77')).toBe(200);
    expect(await storedAddresses()).toEqual([expect.stringMatching(PEER)]);
    expect(loggedAddresses()).toEqual([expect.stringMatching(PEER)]);
    expect(JSON.stringify(loggedAddresses())).not.toContain('198.51.100.77');
  });

  it('`false` and `0` mean the same', async () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(0);
    expect(loadConfig({}).TRUST_PROXY).toBe(0);
  });
});

describe('with TRUST_PROXY', () => {
  it('1: the address the proxy appended is the client; an address the client forged before it is ignored', async () => {
    await start({ TRUST_PROXY: '1' });
    const statuses: number[] = [];
    // The same client behind the proxy, forging a different first address each time.
    for (let i = 1; i <= 6; i++) statuses.push(await submit(`10.9.9.${i}, 203.0.113.5`));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another client behind the same proxy is not limited by the first.
    expect(await submit('203.0.113.6')).toBe(200);
    expect(new Set(await storedAddresses())).toEqual(new Set(['203.0.113.5', '203.0.113.6']));
    expect(loggedAddresses()).toEqual([...Array(6).fill('203.0.113.5'), '203.0.113.6']);
  });

  it('2: the second address from the right; `true` means 1', async () => {
    await start({ TRUST_PROXY: '2' });
    expect(await submit('10.0.0.1, 203.0.113.8, 192.0.2.1')).toBe(200);
    expect(await storedAddresses()).toEqual(['203.0.113.8']);
    expect(loggedAddresses()).toEqual(['203.0.113.8']);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(1);
  });

  it('anything else is a configuration error naming the variable', () => {
    for (const value of ['yes', '-1', '11', '10.0.0.0/8']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY/);
    }
  });
});
