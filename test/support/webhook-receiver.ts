/**
 * A local webhook receiver for whole-stack tests (exempted by WEBHOOK_ALLOWLIST): it records every
 * request; paths under `/fail` answer 500, under `/flaky` 500 the first time each and 200 after,
 * under `/hang` nothing the first time each (the delivery times out), under `/redirect` 302 to
 * `/target`, anything else 200. `signatureValid` checks `X-Signature` as a receiver should (constant time).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  port: number;
  url: string;
  received: ReceivedRequest[];
  /** Requests whose URL starts with `prefix`, in arrival order. */
  at(prefix: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      received.push({ method: req.method ?? '', url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const pathname = new URL(url, 'http://x').pathname;
      const n = (seen.get(pathname) ?? 0) + 1;
      seen.set(pathname, n);
      const kind = pathname.split('/')[1];
      if (kind === 'fail' || (kind === 'flaky' && n === 1)) res.writeHead(500).end('no');
      else if (kind === 'hang' && n === 1) return;
      else if (kind === 'redirect') res.writeHead(302, { Location: '/target' }).end();
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    at: (prefix) => received.filter((r) => r.url.startsWith(prefix)),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Constant-time check of an `X-Signature` header against HMAC-SHA256(message, secret). */
export function signatureValid(header: string | string[] | undefined, message: string, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(message, 'utf8').digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
