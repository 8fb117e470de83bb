/**
 * One webhook HTTP attempt with no rebinding window (api-spec.md "Events", delivery rules 1, 3, 6):
 * the host name is resolved here, every address is checked, and the connection goes to the checked
 * address through an undici Agent whose `connect.lookup` answers only that address (the Host
 * header and TLS SNI keep the name). Redirects are not followed; any 2xx is success.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { addressRange, isPublicAddress, urlHost } from './url-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (injectable: tests map names to chosen addresses). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * The system resolver (getaddrinfo: /etc/hosts, then DNS). getaddrinfo blocks one of libuv's four
 * thread-pool threads per call, which file system and crypto work share, so deliveries use it only
 * for WEBHOOK_ALLOWLIST hosts (the operator's own names, e.g. in /etc/hosts); see `dnsResolver`.
 */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** One DNS query's wait before c-ares retries it, ms; two tries per query. */
const DNS_TRY_TIMEOUT_MS = 2_000;

/**
 * A DNS resolver for webhook hosts: `dns.promises.Resolver` (c-ares, non-blocking sockets on the
 * event loop), so slow or unanswered lookups never occupy the libuv thread pool. A and AAAA are
 * asked at once; each query gives up after two tries of `tryTimeoutMs` (the attempt's own timeout
 * bounds the whole lookup as well). It reads /etc/resolv.conf, not /etc/hosts.
 * @param options.servers DNS servers (`host` or `host:port`); default the system's.
 * @returns a HostResolver that rejects (ENOTFOUND, ENODATA, ETIMEOUT, ...) when neither family answers.
 */
export function dnsResolver(options: { servers?: string[]; tryTimeoutMs?: number } = {}): HostResolver {
  const resolver = new dns.promises.Resolver({ timeout: options.tryTimeoutMs ?? DNS_TRY_TIMEOUT_MS, tries: 2 });
  if (options.servers) resolver.setServers(options.servers);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (found.length === 0) throw v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : new Error(`${hostname}: no address`);
    return found;
  };
}

/** How one attempt ended: `refused` is final (not retried), `failed` is retried. */
export interface AttemptResult {
  outcome: 'delivered' | 'failed' | 'refused';
  httpStatus: number | null;
  error: string | null;
}

export interface PinnedRequest {
  /** Normalised URL (from the URL policy): requested exactly as `url.href`. */
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The whole attempt (resolution, connection, response headers) must finish within this. */
  timeoutMs: number;
  resolve: HostResolver;
  /** The host is on WEBHOOK_ALLOWLIST: its addresses are not checked. */
  allowlisted: boolean;
  /** Aborts the attempt (activity cancellation). */
  signal?: AbortSignal;
}

/** A `lookup` for net/tls.connect that answers only the pre-checked address. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
}

/** Resolves the URL's host (IP literals as they are), bounded by `signal`. */
async function addressesOf(url: URL, resolve: HostResolver, signal: AbortSignal): Promise<ResolvedAddress[]> {
  const { host, ip } = urlHost(url);
  if (ip) return [{ address: host, family: host.includes(':') ? 6 : 4 }];
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  return Promise.race([resolve(host), aborted]);
}

/** Sends one attempt; never throws for network outcomes (they are `failed` results). */
export async function sendPinned(req: PinnedRequest): Promise<AttemptResult> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timeout after ${req.timeoutMs} ms`)), req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout.signal, req.signal]) : timeout.signal;
  let agent: Agent | undefined;
  try {
    let addresses: ResolvedAddress[];
    try {
      addresses = await addressesOf(req.url, req.resolve, signal);
    } catch (error) {
      return { outcome: 'failed', httpStatus: null, error: `resolve: ${describe(error, timeout.signal)}` };
    }
    const pinned = addresses[0];
    if (!pinned) return { outcome: 'failed', httpStatus: null, error: 'resolve: no address' };
    if (!req.allowlisted) {
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return { outcome: 'refused', httpStatus: null, error: `resolves to non-public address ${refused.address} (${addressRange(refused.address)})` };
    }
    agent = new Agent({ connect: { lookup: pinnedLookup(pinned) }, pipelining: 0 });
    const res = await request(req.url.href, { method: req.method, headers: req.headers, body: req.body, dispatcher: agent, signal });
    await res.body.dump({ limit: 64 * 1024, signal }).catch(() => undefined);
    if (res.statusCode >= 200 && res.statusCode < 300) return { outcome: 'delivered', httpStatus: res.statusCode, error: null };
    const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirect not followed)' : '';
    return { outcome: 'failed', httpStatus: res.statusCode, error: `HTTP ${res.statusCode}${redirect}` };
  } catch (error) {
    return { outcome: 'failed', httpStatus: null, error: describe(error, timeout.signal) };
  } finally {
    clearTimeout(timer);
    await agent?.destroy().catch(() => undefined);
  }
}

/** Error text: the timeout's own message when the timer fired, else the error's code/message. */
function describe(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return (timeout.reason as Error).message;
  const e = error as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(': ') || String(error);
}
