/**
 * Webhook host resolution through c-ares (`dnsResolver`), against a small DNS server on 127.0.0.1:
 * names resolving to private or loopback addresses are still refused, an unanswered lookup gives
 * up on its own, and a saturated libuv thread pool (the one `dns.lookup` waits for) does not delay it.
 */
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsResolver, sendPinned } from '../../core/webhooks/pinned-request.js';

/** Names the test server answers: A and AAAA records; `silent.test.example` is never answered. */
const RECORDS: Record<string, { a?: string[]; aaaa?: string[] }> = {
  'public.test.example': { a: ['93.184.216.34'], aaaa: ['2606:2800:220:1:248:1893:25c8:1946'] },
  'private.test.example': { a: ['10.0.0.7'] },
  'mixed.test.example': { a: ['93.184.216.34', '192.168.1.20'] },
  'loopback.test.example': { a: ['127.0.0.1'] },
  'metadata.test.example': { aaaa: ['::ffff:169.254.169.254'] },
};
const SILENT = 'silent.test.example';

let server: dgram.Socket;
let servers: string[];
const queries: string[] = [];

/** The question's name and type of a DNS query packet. */
function question(msg: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let i = 12;
  while (msg[i] !== 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('ascii'));
    i += msg[i]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(i + 1), end: i + 5 };
}

/** An answer to `msg`: NXDOMAIN for unknown names, else the records of the asked type (maybe none). */
function answer(msg: Buffer): Buffer | null {
  const q = question(msg);
  queries.push(`${q.name}/${q.type === 28 ? 'AAAA' : 'A'}`);
  if (q.name === SILENT) return null;
  const record = RECORDS[q.name];
  const addresses = record ? (q.type === 1 ? record.a : q.type === 28 ? record.aaaa : undefined) ?? [] : [];
  const header = Buffer.alloc(12);
  msg.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(record ? 0x8180 : 0x8183, 2); // response, recursion available; NXDOMAIN when unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const data = q.type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(q.type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, msg.subarray(12, q.end), ...answers]);
}

function ipv6Bytes(address: string): Buffer {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return Buffer.concat([Buffer.alloc(10), Buffer.from([0xff, 0xff]), Buffer.from(mapped[1]!.split('.').map(Number))]);
  const [head, tail = ''] = address.split('::');
  const parts = (s: string) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const groups = [...parts(head!), ...Array(8 - parts(head!).length - parts(tail).length).fill(0), ...parts(tail)];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

beforeAll(async () => {
  server = dgram.createSocket('udp4');
  server.on('message', (msg, from) => {
    const reply = answer(msg);
    if (reply) server.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  servers = [`127.0.0.1:${(server.address() as AddressInfo).port}`];
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('webhook DNS resolution (c-ares)', () => {
  it('answers A and AAAA records of a name; an unknown name fails', async () => {
    const resolve = dnsResolver({ servers });
    expect(await resolve('public.test.example')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    expect(await resolve('private.test.example')).toEqual([{ address: '10.0.0.7', family: 4 }]);
    await expect(resolve('unknown.test.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('a delivery to a name resolving to a private, loopback or link-local address is refused without a request', async () => {
    let requests = 0;
    const receiver = http.createServer((_req, res) => { requests++; res.writeHead(204).end(); });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    try {
      const resolve = dnsResolver({ servers });
      const send = (host: string) => sendPinned({ url: new URL(`http://${host}:${port}/hook`), method: 'GET', headers: {}, timeoutMs: 2_000, resolve, allowlisted: false });
      expect(await send('private.test.example')).toEqual({ outcome: 'refused', httpStatus: null, error: 'resolves to non-public address 10.0.0.7 (private)' });
      expect(await send('mixed.test.example')).toMatchObject({ outcome: 'refused', error: 'resolves to non-public address 192.168.1.20 (private)' });
      expect(await send('loopback.test.example')).toMatchObject({ outcome: 'refused', error: 'resolves to non-public address 127.0.0.1 (loopback)' });
      expect(await send('metadata.test.example')).toMatchObject({ outcome: 'refused', error: expect.stringContaining('(linkLocal)') });
      expect(requests).toBe(0);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('an unanswered lookup gives up by itself, and the attempt is a failed (retried) one', async () => {
    const resolve = dnsResolver({ servers, tryTimeoutMs: 200 });
    const startedAt = Date.now();
    await expect(resolve(SILENT)).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    const result = await sendPinned({ url: new URL(`https://${SILENT}/hook`), method: 'GET', headers: {}, timeoutMs: 5_000, resolve, allowlisted: false });
    expect(result).toMatchObject({ outcome: 'failed', httpStatus: null, error: expect.stringMatching(/^resolve: ETIMEOUT/) });
  });

  it('resolves while the libuv thread pool is saturated (where dns.lookup waits)', async () => {
    const resolve = dnsResolver({ servers });
    const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    // Occupy every thread-pool thread for a while (pbkdf2 runs there).
    const busy = Array.from({ length: poolSize * 2 }, () => new Promise((done) => crypto.pbkdf2('secret', 'salt', 400_000, 64, 'sha512', done)));
    const poolFree = Promise.all(busy).then(() => Date.now());
    const startedAt = Date.now();
    const lookupDone = dns.promises.lookup('localhost').then(() => Date.now());
    const addresses = await resolve('public.test.example');
    const resolvedAt = Date.now();
    const [lookupAt, freeAt] = await Promise.all([lookupDone, poolFree]);
    expect(addresses).toHaveLength(2);
    console.log(`c-ares: ${resolvedAt - startedAt} ms; dns.lookup: ${lookupAt - startedAt} ms; thread pool busy for ${freeAt - startedAt} ms`);
    // The thread pool really was saturated: getaddrinfo waited for it ...
    expect(lookupAt - startedAt).toBeGreaterThan(200);
    // ... while the c-ares lookup answered long before.
    expect(resolvedAt).toBeLessThan(lookupAt);
    expect(resolvedAt - startedAt).toBeLessThan((lookupAt - startedAt) / 2);
  });
});
