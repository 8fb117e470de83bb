/**
 * Structured JSON logging (pino). One root logger per process; children carry component names.
 *
 * Secrets never reach a log line: pino's `redact` replaces the values at `REDACTED_PATHS` (the
 * Authorization header of request lines, API keys, webhook secrets, credentials links and payloads
 * under their usual names) with `[Redacted]`, and cuts the one-time token out of a credentials
 * link's URL (`req.url`, api/rest/middleware/access-log.ts).
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** What replaces a redacted value. */
export const REDACTED = '[Redacted]';

/** Names under which a secret may be logged: at the top of a line and one level down. */
const SECRET_KEYS = [
  'authorization', 'cookie', 'api_key', 'apiKey', 'key', 'webhook_secret', 'webhookSecret', 'secret', 'password', 'token',
  'credentials_url', 'credentialsUrl', 'credentials_payload', 'credentialsPayload',
];

/** Paths pino redacts (fast-redact syntax). */
export const REDACTED_PATHS: readonly string[] = [
  'req.url',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`]),
];

/** The path of a credentials link (`/v1/public/credentials/<token>`): its token is the secret. */
const CREDENTIALS_PATH = /(\/v1\/public\/credentials\/)[^/?#]*/g;

/** A request URL without the token of a credentials link; any other value redacted whole. */
function censor(value: unknown, path: (string | symbol)[]): unknown {
  if (path.length === 2 && path[0] === 'req' && path[1] === 'url' && typeof value === 'string') return value.replace(CREDENTIALS_PATH, `$1${REDACTED}`);
  return REDACTED;
}

/**
 * Creates the root logger at `level`, writing JSON lines to `destination` (default stdout).
 */
export function createLogger(level: string = 'info', name = 'retail-data-api', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: [...REDACTED_PATHS], censor } };
  return destination ? pino(options, destination) : pino(options);
}
