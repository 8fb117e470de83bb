/**
 * Forward proxies on loopback for tests and benchmarks (Apify's proxy-chain): in front of the
 * replay server, a proxy may ask for credentials, and may answer some or all requests itself with
 * a page of its own (a saved robot check) instead of forwarding them, as a blocked address would
 * see. Each proxy counts the requests it forwarded and the ones it answered itself.
 */
import { Server } from 'proxy-chain';

/** Options of {@link startForwardProxy}. */
export interface ForwardProxyOptions {
  /** Credentials the proxy requires (407 without them). */
  credentials?: { username: string; password: string };
  /** The page the proxy answers with instead of forwarding (HTTP 200, text/html). */
  blockPage?: string | Uint8Array;
  /** Whether a request is answered with `blockPage`: a share 0..1 (drawn at random), or a decision. Default 1 when `blockPage` is set. */
  block?: number | ((path: string) => boolean);
}

/** A listening forward proxy. */
export interface ForwardProxy {
  /** `http://[user:pass@]127.0.0.1:<port>`: a SOURCE_PROXIES entry. */
  url: string;
  /** `127.0.0.1:<port>`: how the service names it in logs and metrics. */
  label: string;
  /** Request paths it forwarded (authenticated), in order. */
  forwarded: string[];
  /** Request paths it answered with the block page. */
  blocked: string[];
  /** Requests it refused for want of (the right) credentials. */
  refused: number;
  close(): Promise<void>;
}

/** Starts one proxy on 127.0.0.1 on a free port. */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const { credentials, blockPage } = options;
  const block = options.block ?? (blockPage === undefined ? 0 : 1);
  const blocks = (path: string) => (typeof block === 'function' ? block(path) : Math.random() < block);
  const counts = { forwarded: [] as string[], blocked: [] as string[], refused: 0 };
  const server = new Server({
    port: 0,
    host: '127.0.0.1',
    verbose: false,
    prepareRequestFunction: ({ request, username, password }) => {
      if (credentials && (username !== credentials.username || password !== credentials.password)) {
        counts.refused += 1;
        return { requestAuthentication: true };
      }
      const path = new URL(request.url ?? '/', 'http://proxy.invalid').pathname;
      if (blockPage !== undefined && blocks(path)) {
        counts.blocked.push(path);
        const body = typeof blockPage === 'string' ? blockPage : Buffer.from(blockPage);
        return { customResponseFunction: () => ({ statusCode: 200, headers: { 'content-type': 'text/html' }, body }) };
      }
      counts.forwarded.push(path);
      return {};
    },
  });
  await server.listen();
  const label = `127.0.0.1:${server.port}`;
  const auth = credentials ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@` : '';
  return {
    url: `http://${auth}${label}`,
    label,
    get forwarded() { return counts.forwarded; },
    get blocked() { return counts.blocked; },
    get refused() { return counts.refused; },
    close: () => server.close(true),
  };
}
