/**
 * The service's configuration: every variable of operations-contract.md, parsed once with zod.
 * This is the only module that reads `process.env`; everything else receives a `Config`.
 */
import path from 'node:path';
import ms from 'ms';
import { z } from 'zod';

/** Parses a duration such as `90s`, `5m`, `1h` (the `ms` library) into milliseconds. */
const duration = z.string().trim().transform((text, ctx) => {
  const value = ms(text as ms.StringValue);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    ctx.addIssue({ code: 'custom', message: `not a duration: "${text}" (use 90s, 5m, 1h)` });
    return z.NEVER;
  }
  return value;
});

const commaList = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));

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
});

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
});

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
});

const schema = z.object({
  /** @default 3000 */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** PostgreSQL URL; unset → embedded PGlite served on a local socket, data in DATA_DIR. */
  DATABASE_URL: optionalString,
  /** Temporal frontend `host:port`; unset → the Temporal CLI dev server is started. */
  TEMPORAL_ADDRESS: optionalString,
  /** @default "default" */
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  /** Task queue the worker polls. @default "retail-products" */
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1).default('retail-products'),
  /** Path of the Temporal CLI binary for the embedded dev server; unset → PATH, then `.tools/bin/temporal`. */
  TEMPORAL_CLI_PATH: optionalString,
  /** Comma-separated CDP WebSocket endpoints; unset → a local headless Chromium. */
  BROWSER_WS_ENDPOINTS: z.string().default('').pipe(commaList),
  /** Chromium binary; unset → /usr/bin/chromium, chromium, google-chrome. */
  CHROME_PATH: optionalString,
  /** Concurrent pages per browser. @default 4 */
  BROWSER_MAX_PAGES: z.coerce.number().int().min(1).max(64).default(4),
  /** Page navigation timeout per read. @default "30s" */
  BROWSER_NAV_TIMEOUT: duration.default(30_000),
  /** @default "./data" */
  DATA_DIR: z.string().default('./data').transform((p) => path.resolve(p)),
  /** Stand-in origin for the marketplaces (operations-contract.md). */
  RETAIL_SOURCE_ORIGIN: optionalString.pipe(z.url().optional()),
  /** @default "hourly=1h,every_6h=6h,daily=24h" */
  MONITORING_INTERVALS: monitoringIntervals.default({ hourly: 3_600_000, every_6h: 21_600_000, daily: 86_400_000 }),
  /** Delays before webhook retries 1..3. @default "1m,5m,15m" */
  WEBHOOK_RETRY_DELAYS: retryDelays.default([60_000, 300_000, 900_000]),
  /** One webhook delivery's time limit. @default "10s" */
  WEBHOOK_TIMEOUT: duration.default(10_000),
  /** `host` or `host:port` entries exempt from the private-address rule (local testing only). */
  WEBHOOK_ALLOWLIST: z.string().default('').pipe(commaList),
  /** task_post reuse window. @default "60m" */
  REUSE_WINDOW: duration.default(3_600_000),
  /** live read budget. @default "60s" */
  LIVE_BUDGET: duration.default(60_000),
  /** Port of a standalone worker's Prometheus /metrics listener (`node dist/worker/main.js`); 0 = none.
   *  Under `npm start` the API's /metrics serves the same registry. @default 9464 */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Attempts of one source read before a task fails with 50301. @default 3 */
  SOURCE_READ_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** `production` turns off development aids (GraphiQL at /graphql). @default "development" */
  NODE_ENV: optionalString.transform((s) => s ?? 'development'),
  /** pino level. @default "info" */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Public origin of the API, used to build the one-time credentials links of approved access
   *  requests (`<PUBLIC_BASE_URL>/v1/public/credentials/<token>`); unset → `publicBaseUrl()`'s default. */
  PUBLIC_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** SMTP server for credentials e-mails (nodemailer URL, e.g. `smtps://user:pass@mail.example.com`);
   *  unset → approval only prints the link. */
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
  /** Sender of credentials e-mails. @default "retail-data-api <no-reply@localhost>" */
  MAIL_FROM: z.string().trim().min(1).default('retail-data-api <no-reply@localhost>'),
  /** Days after which tasks (with their webhook deliveries) and rate-limit rows are purged by the
   *  worker's scheduled `retentionPurge` (hourly); observations are never purged by it. Tasks are
   *  also hidden from every read once this old (their `expires_at`). @default 30 (api-spec.md
   *  "Limits": results are kept 30 days) */
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Bearer token every Prometheus /metrics endpoint requires when set (`Authorization: Bearer
   *  <METRICS_TOKEN>`): the API port's, METRICS_LISTEN's and a standalone worker's. Unset → no
   *  token, and the API port does not serve /metrics at all (core/metrics.ts). */
  METRICS_TOKEN: optionalString,
  /** `[host:]port` of a separate listener for the API's /metrics (bare port → every interface,
   *  port 0 → any free port); when set, the API port answers /metrics with 404. Unset with
   *  METRICS_TOKEN unset → /metrics is not served (404, a warning at start); `npm start` then
   *  sets it to a free loopback port (9464 if free) and prints it. */
  METRICS_LISTEN: optionalString.pipe(listenAddress.optional()),
  /** Ports a webhook URL may use (task_post acceptance and delivery); `WEBHOOK_ALLOWLIST` entries
   *  are exempt. @default "80,443" */
  WEBHOOK_PORTS: z.string().default('80,443').pipe(commaList).pipe(z.array(z.string().regex(/^\d+$/, 'not a port').transform(Number).pipe(z.number().int().min(1).max(65535))).min(1)),
  /** Webhook attempts one worker process runs at once (activity slots of the `<TEMPORAL_TASK_QUEUE>-webhooks`
   *  queue), apart from the slots of monitoring and task bookkeeping. @default 64 */
  WEBHOOK_SLOTS: z.coerce.number().int().min(1).max(1024).default(64),
  /** Of those, how many one account's deliveries may hold at once (per worker process): a slow
   *  receiver delays only its own account's deliveries. @default 8 */
  WEBHOOK_ACCOUNT_SLOTS: z.coerce.number().int().min(1).max(1024).default(8),
  /** Reverse proxies in front of the API whose `X-Forwarded-For` is believed (the client address of
   *  the access-request limit and of the logs). Unset, empty, `false` or `0`: none, the header is
   *  ignored and the client is the connection's peer. A number n (1..10): n proxies, each appending
   *  the address it saw, so the client is the n-th address from the right; `true` means 1.
   *  @default none (0) */
  TRUST_PROXY: trustProxy.default(0),
  /** Connections to DATABASE_URL per process (the embedded database is one session: always 1). @default 10 */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** Longest wait for a free database connection (or a new one to open); then the request answers
   *  50000 "No database connection was free in time". @default "10s" */
  DATABASE_POOL_TIMEOUT: duration.pipe(z.number().positive()).default(10_000),
  /** PostgreSQL `statement_timeout` of the service's connections: a statement running longer is
   *  cancelled and the request answers 50000 "The database did not answer in time", nothing charged.
   *  `0` turns it off. Not applied to the embedded database (PGlite cannot cancel a statement). @default "30s" */
  DATABASE_STATEMENT_TIMEOUT: duration.default(30_000),
  /** PostgreSQL `idle_in_transaction_session_timeout`: a session idle that long inside a transaction
   *  is ended and the transaction rolled back. `0` turns it off; not applied to the embedded database. @default "60s" */
  DATABASE_IDLE_TRANSACTION_TIMEOUT: duration.default(60_000),
});

/** The parsed configuration; units: durations in ms, `DATA_DIR` absolute. */
export type Config = Readonly<z.output<typeof schema>>;

/** Raised when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses configuration from an environment object (default `process.env`).
 * @throws ConfigError naming each invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return Object.freeze(result.data);
}

/** Base URL of public links without a trailing slash: `PUBLIC_BASE_URL`, else `http://127.0.0.1:<PORT>`. */
export function publicBaseUrl(config: Config): string {
  return (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
}
