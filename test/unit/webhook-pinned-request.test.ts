/**
 * One webhook attempt against a local node:http server: the host name is resolved once, every
 * address is checked, and the connection goes to the checked address with the Host header kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendPinned, type HostResolver } from '../../core/webhooks/pinned-request.js';

let server: http.Server;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    if (req.url === '/moved') res.writeHead(301, { Location: '/' }).end();
    else res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver that answers `addresses` for every name and counts its calls. */
function resolverOf(...addresses: string[]): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => { calls.push(host); return addresses.map((address) => ({ address, family: address.includes(':') ? 6 as const : 4 as const })); };
  return Object.assign(resolve, { calls });
}

const request = (path: string, resolve: HostResolver, allowlisted: boolean) => sendPinned({
  url: new URL(`http://hooks.pinned.example:${port}${path}`), method: 'GET', headers: {}, timeoutMs: 2_000, resolve, allowlisted,
});

describe('pinned webhook request', () => {
  it('connects to the resolved, checked address (resolved once) and keeps the name in the Host header', async () => {
    const resolve = resolverOf('127.0.0.1');
    const before = hosts.length;
    expect(await request('/', resolve, true)).toEqual({ outcome: 'delivered', httpStatus: 204, error: null });
    expect(resolve.calls).toEqual(['hooks.pinned.example']);
    expect(hosts.slice(before)).toEqual([`hooks.pinned.example:${port}`]);
  });

  it('refuses, without a request, a name with any non-public address', async () => {
    const before = hosts.length;
    expect(await request('/', resolverOf('127.0.0.1'), false)).toMatchObject({ outcome: 'refused', error: 'resolves to non-public address 127.0.0.1 (loopback)' });
    expect(await request('/', resolverOf('93.184.216.34', '10.0.0.7'), false)).toMatchObject({ outcome: 'refused', error: 'resolves to non-public address 10.0.0.7 (private)' });
    expect(await request('/', resolverOf('::ffff:169.254.169.254'), false)).toMatchObject({ outcome: 'refused' });
    expect(hosts.length).toBe(before);
  });

  it('does not follow redirects, and a resolution failure is a failed (retried) attempt', async () => {
    expect(await request('/moved', resolverOf('127.0.0.1'), true)).toEqual({ outcome: 'failed', httpStatus: 301, error: 'HTTP 301 (redirect not followed)' });
    const failing: HostResolver = async () => { throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }); };
    expect(await request('/', failing, false)).toEqual({ outcome: 'failed', httpStatus: null, error: 'resolve: ENOTFOUND: getaddrinfo ENOTFOUND' });
  });
});
