/**
 * Outbound proxies for page reads (`SOURCE_PROXIES`, `SOURCE_PROXIES_<CODE>`; operations-contract.md):
 * a comma-separated list of `http://user:pass@host:port`, `https://…` or `socks5://host:port`, or
 * `@/path/to/file` with one per line (blank lines and `#` comments skipped).
 *
 * A proxy's credentials are secrets: a {@link SourceProxy} keeps them in private fields, prints
 * (`JSON.stringify`, pino, `util.inspect`) as its label only, and no message of this module
 * repeats an entry's text. The label — `host:port`, with `#n` when several entries share the
 * host and port (a provider's gateway with one user name per session) — is what logs, metric
 * labels and Temporal payloads show.
 */
import fs from 'node:fs';
import { inspect } from 'node:util';

/** Schemes Chromium's per-context proxy accepts; SOCKS carries no credentials in Chromium. */
const SCHEMES = new Set(['http:', 'https:', 'socks4:', 'socks5:']);
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'socks4:': '1080', 'socks5:': '1080' };

/** One outbound proxy. Never prints its credentials. */
export class SourceProxy {
  readonly #url: string;
  readonly #username: string;
  readonly #password: string;

  /**
   * @param label how logs, metrics and payloads name it (`host:port`, `host:port#2`).
   * @param server what Chromium's context is given: `scheme://host:port`, no credentials.
   */
  constructor(
    readonly label: string,
    readonly server: string,
    url: string,
    username: string,
    password: string,
  ) {
    this.#url = url;
    this.#username = username;
    this.#password = password;
  }

  /** The whole URL as configured, credentials included (for Crawlee's ProxyConfiguration only). */
  revealUrl(): string {
    return this.#url;
  }

  /** The credentials (decoded), for `page.authenticate`; undefined without a user name. */
  revealCredentials(): { username: string; password: string } | undefined {
    return this.#username ? { username: this.#username, password: this.#password } : undefined;
  }

  toJSON(): string {
    return this.label;
  }

  toString(): string {
    return this.label;
  }

  [inspect.custom](): string {
    return `SourceProxy(${this.label})`;
  }
}

/** A proxy list that does not parse; the message names the entry by position, never by its text. */
export class ProxyListError extends Error {
  override name = 'ProxyListError';
}

/** Parses one entry (position `n`, 1-based, for messages). @throws ProxyListError */
function parseEntry(text: string, n: number): { url: URL; server: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyListError(`entry ${n} is not a URL (use http://user:pass@host:port or socks5://host:port)`);
  }
  if (!SCHEMES.has(url.protocol)) throw new ProxyListError(`entry ${n}: scheme ${url.protocol} is not one of http, https, socks4, socks5`);
  if (!url.hostname) throw new ProxyListError(`entry ${n} has no host`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) throw new ProxyListError(`entry ${n}: a proxy URL has no path, query or fragment`);
  if (url.protocol.startsWith('socks') && (url.username || url.password)) {
    throw new ProxyListError(`entry ${n}: Chromium cannot authenticate to a SOCKS proxy; use an http(s) proxy for credentials`);
  }
  const port = url.port || DEFAULT_PORTS[url.protocol]!;
  return { url, server: `${url.protocol}//${url.hostname}:${port}` };
}

/**
 * Parses a proxy list: comma- or newline-separated entries; `@<path>` reads the entries from that
 * file (one per line, `#` comments). Identical entries count once. Empty → no proxies.
 * @throws ProxyListError when the file cannot be read or an entry does not parse.
 */
export function parseProxyList(text: string, readFile: (path: string) => string = (p) => fs.readFileSync(p, 'utf8')): SourceProxy[] {
  const trimmed = text.trim();
  let entries: string[];
  if (trimmed.startsWith('@')) {
    const file = trimmed.slice(1).trim();
    let content: string;
    try {
      content = readFile(file);
    } catch (error) {
      throw new ProxyListError(`cannot read the proxy list file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    entries = content.split(/\r?\n/).map((line) => line.replace(/(^|\s)#.*$/, '').trim()).filter(Boolean);
  } else {
    entries = trimmed.split(/[,\n]/).map((entry) => entry.trim()).filter(Boolean);
  }
  const parsed = [...new Set(entries)].map((entry, i) => ({ ...parseEntry(entry, i + 1), text: entry }));
  const hostPort = (url: URL, server: string) => server.slice(url.protocol.length + 2);
  const seen = new Map<string, number>();
  return parsed.map(({ url, server, text: entry }) => {
    const base = hostPort(url, server);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const label = count === 1 ? base : `${base}#${count}`;
    return new SourceProxy(label, server, entry, decodeURIComponent(url.username), decodeURIComponent(url.password));
  });
}
