/**
 * Which webhook URLs the service will call (api-spec.md "Events": URL acceptance, delivery rule 6).
 * Normalisation is WHATWG `URL` (IDN hosts to punycode, IPv4 shorthands such as `0x7f.1` to dotted
 * decimal, default port dropped); address classes are ipaddr.js's `range()` names. Used at
 * task_post (the task fails with 40501) and again at delivery on the URL actually requested.
 * Ports are limited to WEBHOOK_PORTS (operations-contract.md; default 80 and 443), so a webhook
 * cannot be aimed at other services of a public host (SMTP, databases, admin consoles).
 */
import ipaddr from 'ipaddr.js';

/** Longest accepted webhook URL (api-spec.md "Limits"). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Longest DNS label (api-spec.md "Limits": pingback host label). */
const MAX_LABEL_LENGTH = 63;
/** Local names: `localhost` and the special-use suffixes that never name a public host. */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal'];
/** WEBHOOK_PORTS' default: the schemes' own ports. */
export const DEFAULT_WEBHOOK_PORTS: readonly number[] = [80, 443];
/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291), which ipaddr.js files as unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Why a URL was refused (stable names, used in logs, delivery records and tests). */
export type UrlRefusal =
  | 'too_long' | 'control_character' | 'unparseable' | 'scheme' | 'credentials'
  | 'empty_label' | 'long_label' | 'local_name' | 'non_public_address' | 'port';

export type UrlRefused = { ok: false; reason: UrlRefusal; detail: string };
export type UrlVerdict = { ok: true; url: URL; allowlisted: boolean } | UrlRefused;

/**
 * The ipaddr.js range of an address (`unicast`, `private`, `loopback`, `linkLocal`,
 * `carrierGradeNat`, `uniqueLocal`, `multicast`, `unspecified`, `reserved`, ...); IPv4-mapped
 * IPv6 is classified as the IPv4 address it carries.
 * @throws Error when `ip` is not an IP address.
 */
export function addressRange(ip: string): string {
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE) && address.range() === 'unicast') return 'ipv4Compatible';
  return address.range();
}

/** True when `ip` is a public unicast address: every other range is refused. */
export function isPublicAddress(ip: string): boolean {
  return ipaddr.isValid(ip) && addressRange(ip) === 'unicast';
}

/** The host of a parsed URL without IPv6 brackets, and whether it is an IP literal. */
export function urlHost(url: URL): { host: string; ip: boolean } {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, ip: ipaddr.IPv6.isValid(host) || ipaddr.IPv4.isValidFourPartDecimal(host) };
}

/** The port a URL connects to (`url.port` is empty for the scheme's default). */
function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * Whether `WEBHOOK_ALLOWLIST` exempts the URL's host: an entry `host` matches any port,
 * `host:port` (`[v6]:port` for IPv6) only that port. Entry hosts are normalised like URLs.
 */
export function isAllowlisted(url: URL, allowlist: readonly string[]): boolean {
  for (const entry of allowlist) {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim());
    if (!match) continue;
    let host: string;
    try {
      host = new URL(`http://${match[1]}`).hostname;
    } catch {
      continue;
    }
    if (host === url.hostname && (match[2] === undefined || Number(match[2]) === Number(effectivePort(url)))) return true;
  }
  return false;
}

/** C0 controls, DEL and C1 controls: WHATWG `URL` would silently drop tabs and newlines. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Checks a host name's labels and refuses local names. */
function checkHostName(host: string): UrlRefused | null {
  const labels = host.split('.');
  if (labels.some((l) => l === '')) return { ok: false, reason: 'empty_label', detail: host };
  if (labels.some((l) => l.length > MAX_LABEL_LENGTH)) return { ok: false, reason: 'long_label', detail: host };
  if (labels.length === 1 || host === 'localhost' || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return { ok: false, reason: 'local_name', detail: host };
  }
  return null;
}

/**
 * Decides whether a webhook URL may be called. On success `url` is the normalised URL to request
 * and sign (fragment removed); `allowlisted` says the host is exempt from the address rules.
 * @param options.maxLength length limit of the raw text (delivery passes Infinity: the configured
 *   URL was checked at task_post, and `$tag` may lengthen a pingback).
 * @param options.ports the ports a URL may use unless allowlisted (WEBHOOK_PORTS; default 80, 443).
 */
export function checkWebhookUrl(raw: string, allowlist: readonly string[], options: { maxLength?: number; ports?: readonly number[] } = {}): UrlVerdict {
  if (raw.length > (options.maxLength ?? MAX_WEBHOOK_URL_LENGTH)) return { ok: false, reason: 'too_long', detail: `${raw.length} characters` };
  if (hasControlCharacter(raw)) return { ok: false, reason: 'control_character', detail: 'control character' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'unparseable', detail: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'scheme', detail: url.protocol };
  if (url.username || url.password) return { ok: false, reason: 'credentials', detail: 'user information in URL' };
  url.hash = '';
  const { host, ip } = urlHost(url);
  if (!ip) {
    const refused = checkHostName(host);
    if (refused && !(refused.reason === 'local_name' && isAllowlisted(url, allowlist))) return refused;
  }
  const allowlisted = isAllowlisted(url, allowlist);
  if (ip && !allowlisted && !isPublicAddress(host)) return { ok: false, reason: 'non_public_address', detail: `${host} (${addressRange(host)})` };
  const port = Number(effectivePort(url));
  if (!allowlisted && !(options.ports ?? DEFAULT_WEBHOOK_PORTS).includes(port)) return { ok: false, reason: 'port', detail: `port ${port}` };
  return { ok: true, url, allowlisted };
}
