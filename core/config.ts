/**
 * The service's configuration: every variable of operations-contract.md, parsed once with zod.
 * This is the only module that reads `process.env`; everything else receives a `Config`.
 */
import path from 'node:path';
import ms from 'ms';
import { z } from 'zod';
import { MARKETPLACE_CODES, type MarketplaceCode } from './marketplaces.js';
import { ProxyListError, parseProxyList, type SourceProxy } from './proxy-list.js';

/** Parses a duration such as `90s`, `5m`, `1h` (the `ms` library) into milliseconds. */
const duration = z.string().trim().transform((text, ctx) => {
  const value = ms(text as ms.StringValue);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    ctx.addIssue({ code: 'custom', message: `not a duration: "${text}" (use 90s, 5m, 1h)` });
    return z.NEVER;
  }
  return value;
}).meta({ format: 'duration (`90s`, `5m`, `1h`)' });

const commaList = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean)).meta({ format: 'comma-separated list' });

const optionalString = z.string().trim().optional().transform((s) => (s ? s : undefined));

const monitoringIntervals = z.string().transform((text, ctx) => {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, value] = part.split('=');
    const parsed = value === undefined ? undefined : ms(value.trim() as ms.StringValue);
    if (!name || !['hourly', 'every_6h', 'daily'].includes(name.trim()) || typeof parsed !== 'number' || parsed <= 0) {
      ctx.addIssue({ code: 'custom', message: `bad entry "${part}" (use hourly=1h,every_6h=6h,daily=24h)` });
      return z.NEVER;
    }
    out[name.trim()] = parsed;
  }
  return { hourly: out.hourly ?? 3_600_000, every_6h: out.every_6h ?? 21_600_000, daily: out.daily ?? 86_400_000 };
}).meta({ format: '`hourly=<duration>,every_6h=<duration>,daily=<duration>`' });

const retryDelays = commaList.pipe(z.array(duration).min(1));

/** A listen address `[host:]port` (`9464`, `127.0.0.1:9464`, `[::1]:9464`); a bare port listens on every interface. */
const listenAddress = z.string().trim().transform((text, ctx) => {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    ctx.addIssue({ code: 'custom', message: `not a listen address: "${text}" (use 9464 or 127.0.0.1:9464)` });
    return z.NEVER;
  }
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? '0.0.0.0', port };
}).meta({ format: '`[host:]port`' });

/** A proxy list (core/proxy-list.ts); a bad entry is named by position, never by its text (it may hold credentials). */
const proxyList = z.string().transform((text, ctx): SourceProxy[] => {
  try {
    return parseProxyList(text);
  } catch (error) {
    if (!(error instanceof ProxyListError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
}).meta({ format: 'comma-separated `scheme://[user:pass@]host:port` (http, https, socks4, socks5), or `@/path/to/file`' });

const marketplaceProxyList = optionalString.pipe(proxyList.optional()).meta({ format: 'as SOURCE_PROXIES' });

/** The variable that overrides SOURCE_PROXIES for one marketplace. */
export type MarketplaceProxiesVariable = `SOURCE_PROXIES_${Uppercase<MarketplaceCode>}`;

/** `SOURCE_PROXIES_<CODE>` of marketplace `code` (`de` → `SOURCE_PROXIES_DE`). */
export function marketplaceProxiesVariable(code: MarketplaceCode): MarketplaceProxiesVariable {
  return `SOURCE_PROXIES_${code.toUpperCase()}` as MarketplaceProxiesVariable;
}

const marketplaceProxies = Object.fromEntries(MARKETPLACE_CODES.map((code) => [
  marketplaceProxiesVariable(code),
  marketplaceProxyList.describe(`Proxies for reads of marketplace \`${code}\` only, same format as SOURCE_PROXIES; unset → SOURCE_PROXIES.`),
])) as Record<MarketplaceProxiesVariable, typeof marketplaceProxyList>;

/** TRUST_PROXY → trusted proxy hops: unset / empty / `false` / `0` → 0, `true` → 1, `n` → n (at most 10). */
const trustProxy = z.string().trim().toLowerCase().transform((text, ctx) => {
  if (text === '' || text === 'false') return 0;
  if (text === 'true') return 1;
  const hops = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  if (!(hops <= 10)) {
    ctx.addIssue({ code: 'custom', message: `not a proxy count: "${text}" (use false, true or the number of proxies, 1..10)` });
    return z.NEVER;
  }
  return hops;
}).meta({ format: '`false`, `true` or a proxy count 0..10' });

/**
 * Every variable, its parsing, its default and (`.describe`) its meaning: docs/operations.md
 * "Configuration" is generated from it (`npm run docs:config`).
 */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000)
    .describe('TCP port of the API (REST, GraphQL, /openapi.json, /docs).'),
  DATABASE_URL: optionalString
    .describe('PostgreSQL URL; unset → embedded PGlite served on a local socket, data in DATA_DIR.'),
  RDA_API_KEY: optionalString
    .describe('API key of the stdio MCP server (`npm run mcp`): every tool call is that account\'s, authenticated as a Bearer key.'),
  TEMPORAL_ADDRESS: optionalString
    .describe('Temporal frontend `host:port`; unset → the Temporal CLI dev server is started.'),
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default')
    .describe('Temporal namespace of workflows, schedules and the worker.'),
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1).default('retail-products')
    .describe(
      'Task queue the worker polls; page reads use `<queue>-page-reads`, webhook attempts ' +
      '`<queue>-webhooks`.',
    ),
  TEMPORAL_CLI_PATH: optionalString
    .describe(
      'Path of the Temporal CLI binary for the embedded dev server; unset → PATH, then ' +
      '`.tools/bin/temporal`.',
    ),
  BROWSER_WS_ENDPOINTS: z.string().default('').pipe(commaList)
    .describe('Comma-separated CDP WebSocket endpoints; unset → a local headless Chromium.'),
  CHROME_PATH: optionalString
    .describe(
      'Chromium binary; unset → Chromium\'s headless shell (Debian\'s `chromium-headless-shell`: ' +
      '/usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium-headless-shell, on PATH), else ' +
      '/usr/bin/chromium, chromium, google-chrome.',
    ),
  BROWSER_MAX_PAGES: z.coerce.number().int().min(1).max(64).default(4)
    .describe('Concurrent pages per browser.'),
  BROWSER_NAV_TIMEOUT: duration.default(30_000)
    .describe('Page navigation timeout per read.'),
  READ_NICE: z.coerce.number().int().min(0).max(19).default(0)
    .describe(
      'Nice value (0–19) of the locally launched Chromium and of the parse threads: on a saturated machine the ' +
      'API, the database and Temporal get the CPU first and reads take the rest; 0 = the service\'s own priority. ' +
      'Off by default: when set, reads also yield to webhook floods and any other work on the machine. ' +
      'A remote grid (BROWSER_WS_ENDPOINTS) is not affected.',
    ),
  PARSE_THREADS: z.coerce.number().int().min(0).max(64).optional()
    .describe(
      'Worker threads that decode and parse the pages read, so the API and the Temporal worker never wait ' +
      'behind a parse; 0 = parse on the main thread; unset → min(2, cores − 1), at least 1.',
    ),
  DATA_DIR: z.string().default('./data').transform((p) => path.resolve(p))
    .describe(
      'Directory of the embedded database (PGlite) and the embedded Temporal dev server\'s files; resolved ' +
      'to an absolute path.',
    ),
  RETAIL_SOURCE_ORIGIN: optionalString.pipe(z.url().optional())
    .describe('Stand-in origin for the marketplaces (operations-contract.md).'),
  MONITORING_INTERVALS: monitoringIntervals.default({ hourly: 3_600_000, every_6h: 21_600_000, daily: 86_400_000 })
    .describe(
      'Period of each monitoring frequency (`hourly`, `every_6h`, `daily`); entries left out keep their ' +
      'default.',
    ),
  WEBHOOK_RETRY_DELAYS: retryDelays.default([60_000, 300_000, 900_000])
    .describe('Delays before the webhook retries, one per retry.'),
  WEBHOOK_TIMEOUT: duration.default(10_000)
    .describe('One webhook delivery\'s time limit.'),
  WEBHOOK_ALLOWLIST: z.string().default('').pipe(commaList)
    .describe('`host` or `host:port` entries exempt from the private-address rule (local testing only).'),
  REUSE_WINDOW: duration.default(3_600_000)
    .describe(
      'task_post completes a task from a stored observation of the product younger than this, without ' +
      'reading the page.',
    ),
  LIVE_BUDGET: duration.default(60_000)
    .describe('How long `live` waits for its read; past it the task answers 50301 and is refunded.'),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464)
    .describe(
      'Port of a standalone worker\'s Prometheus /metrics listener (`node dist/worker/main.js`); 0 = none. ' +
      'Under `npm start` the API\'s /metrics serves the same registry.',
    ),
  SOURCE_READ_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3)
    .describe(
      'Attempts of the read activity (Temporal retries, with backoff) before a task fails with 50301: a ' +
      'browser that crashed or could not be reached, a worker lost mid-read. Blocked reads are retried on ' +
      'other identities inside one attempt (SOURCE_ATTEMPTS).',
    ),
  SOURCE_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3)
    .describe(
      'Reads of one page within one read attempt, each on another identity (session: proxy, cookie jar, ' +
      'fingerprint; another proxy when the marketplace has more than one) after a robot check, an error or ' +
      'degraded page, an error status (429, 503, …), a proxy error or a timeout, always within the task\'s ' +
      'budget; when every attempt failed the task answers 50301 (refunded).',
    ),
  SOURCE_PROXIES: z.string().default('').pipe(proxyList)
    .describe(
      'Outbound proxies of page reads, one Chromium context per read through one of them; empty → reads go ' +
      'out directly. Credentials never appear in logs, metrics or payloads (a proxy is named `host:port`).',
    ),
  ...marketplaceProxies,
  SOURCE_PROXY_MAX_BLOCK_RATE: z.coerce.number().min(0).max(1).default(0.5)
    .describe(
      'Share of a proxy\'s last 20 reads of a marketplace (judged from 5 reads on) that were blocked or failed ' +
      '(proxy error, timeout) above which the proxy is quarantined for that marketplace for SOURCE_PROXY_COOLDOWN.',
    ),
  SOURCE_PROXY_COOLDOWN: duration.default(600_000)
    .describe('How long a quarantined proxy is left out; when every proxy of a marketplace is out, its reads fail at once (50301).'),
  NODE_ENV: optionalString.transform((s) => s ?? 'development')
    .describe('`production` turns off development aids (GraphiQL and GraphQL introspection).'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .describe('Lowest level of the pino JSON logs written to standard output.'),
  PUBLIC_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional())
    .describe(
      'Public origin of the API, used to build the one-time credentials links of approved access requests ' +
      '(`<PUBLIC_BASE_URL>/v1/public/credentials/<token>`); unset → `http://127.0.0.1:<PORT>`.',
    ),
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional())
    .describe(
      'SMTP server for credentials e-mails (nodemailer URL, e.g. `smtps://user:pass@mail.example.com`); ' +
      'unset → approval only prints the link.',
    ),
  MAIL_FROM: z.string().trim().min(1).default('retail-data-api <no-reply@localhost>')
    .describe('Sender of credentials e-mails.'),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30)
    .describe(
      'Days after which tasks (with their webhook deliveries) and rate-limit rows are purged by the ' +
      'worker\'s scheduled `retentionPurge` (hourly); observations are never purged by it. Tasks are also ' +
      'hidden from every read once this old (their `expires_at`). The default follows api-spec.md "Limits" ' +
      '(results are kept 30 days).',
    ),
  OBSERVATION_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).optional()
    .describe(
      'Unset (the default): observations are kept for good (history is what we sell). Set: the hourly ' +
      '`retentionPurge` drops the monthly partitions of observations wholly older than this many days ' +
      '(whole partitions, no row-by-row delete), and deletes the search observations older than it ' +
      '(in batches). RETENTION_DAYS never touches observations.',
    ),
  METRICS_TOKEN: optionalString
    .describe(
      'Bearer token every Prometheus /metrics endpoint requires when set (`Authorization: Bearer ' +
      '<METRICS_TOKEN>`): the API port\'s, METRICS_LISTEN\'s and a standalone worker\'s. Unset → no token, and ' +
      'the API port does not serve /metrics at all (core/metrics.ts).',
    ),
  METRICS_LISTEN: optionalString.pipe(listenAddress.optional())
    .describe(
      '`[host:]port` of a separate listener for the API\'s /metrics (bare port → every interface, port 0 → ' +
      'any free port); when set, the API port answers /metrics with 404. Unset with METRICS_TOKEN unset → ' +
      '/metrics is not served (404, a warning at start); `npm start` then sets it to a free loopback port ' +
      '(9464 if free) and prints it.',
    ),
  WEBHOOK_PORTS: z.string().default('80,443').pipe(commaList).pipe(z.array(z.string().regex(/^\d+$/, 'not a port').transform(Number).pipe(z.number().int().min(1).max(65535))).min(1))
    .describe(
      'Ports a webhook URL may use (task_post acceptance and delivery); `WEBHOOK_ALLOWLIST` entries are ' +
      'exempt.',
    ),
  WEBHOOK_SLOTS: z.coerce.number().int().min(1).max(1024).default(64)
    .describe(
      'Webhook attempts one worker process runs at once (activity slots of the ' +
      '`<TEMPORAL_TASK_QUEUE>-webhooks` queue), apart from the slots of monitoring and task bookkeeping.',
    ),
  WEBHOOK_ACCOUNT_SLOTS: z.coerce.number().int().min(1).max(1024).default(8)
    .describe(
      'Of those, how many one account\'s deliveries may hold at once (per worker process): a slow receiver ' +
      'delays only its own account\'s deliveries.',
    ),
  TRUST_PROXY: trustProxy.default(0)
    .describe(
      'Reverse proxies in front of the API whose `X-Forwarded-For` is believed (the client address of the ' +
      'access-request limit and of the logs). Unset, empty, `false` or `0`: none, the header is ignored and ' +
      'the client is the connection\'s peer. A number n (1..10): n proxies, each appending the address it ' +
      'saw, so the client is the n-th address from the right; `true` means 1.',
    ),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10)
    .describe('Connections to DATABASE_URL per process (the embedded database is one session: always 1).'),
  DATABASE_POOL_TIMEOUT: duration.pipe(z.number().positive()).default(10_000)
    .describe(
      'Longest wait for a free database connection (or a new one to open); then the request answers 50000 ' +
      '"No database connection was free in time".',
    ),
  DATABASE_STATEMENT_TIMEOUT: duration.default(30_000)
    .describe(
      'PostgreSQL `statement_timeout` of the service\'s connections: a statement running longer is cancelled ' +
      'and the request answers 50000 "The database did not answer in time", nothing charged. `0` turns it ' +
      'off. Not applied to the embedded database (PGlite cannot cancel a statement).',
    ),
  DATABASE_IDLE_TRANSACTION_TIMEOUT: duration.default(60_000)
    .describe(
      'PostgreSQL `idle_in_transaction_session_timeout`: a session idle that long inside a transaction is ' +
      'ended and the transaction rolled back. `0` turns it off; not applied to the embedded database.',
    ),
});

/** The parsed configuration; units: durations in ms, `DATA_DIR` absolute. */
export type Config = Readonly<z.output<typeof configSchema>>;

/** Raised when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses configuration from an environment object (default `process.env`).
 * @throws ConfigError naming each invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return Object.freeze(result.data);
}

/** The proxies of marketplace `code`: its SOURCE_PROXIES_<CODE> when set, else SOURCE_PROXIES (empty → direct). */
export function sourceProxiesFor(config: Config, code: MarketplaceCode): readonly SourceProxy[] {
  return config[marketplaceProxiesVariable(code)] ?? config.SOURCE_PROXIES;
}

/** Base URL of public links without a trailing slash: `PUBLIC_BASE_URL`, else `http://127.0.0.1:<PORT>`. */
export function publicBaseUrl(config: Config): string {
  return (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
}
