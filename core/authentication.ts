/**
 * Authentication (api-spec.md "Authentication"): HTTP Basic `login:api_key` or Bearer `api_key`.
 * Keys are looked up by their SHA-256 hash, joined with their account in one statement and never
 * cached (a revoked key stops working immediately); for REST requests the same statement counts
 * the request and its task objects against the account's rate limits (core/rate-limits.ts).
 * Failures throw DomainError AUTH_FAILED (missing, malformed, mismatch), KEY_REVOKED, ACCOUNT_DISABLED.
 * Both presenters use it: the REST middleware (api/rest/middleware/auth.ts) and GraphQL's context.
 */
import type { Db } from './db/db.js';
import { DomainError } from './errors.js';
import { findApiKeyAccount, findApiKeyAccountCounting, hashApiKey, type ApiKeyAccount } from './api-keys.js';
import { isStorableText } from './storable-text.js';
import { taskObjects, type AccountLimits, type AccountRateLimits } from './rate-limits.js';
import { planOf } from './pricing.js';

/** The authenticated account as services see it. */
export interface AuthAccount {
  id: number;
  login: string;
  plan: string;
  keyId: number;
  /** Effective per-minute limits (account override, else plan default). */
  limits: AccountLimits;
}

/**
 * The Authorization header's key and, for Basic, its login. The key is only hashed; the login goes
 * into the lookup statement, so one the database cannot store (core/storable-text.ts) is malformed.
 */
function credentials(header: string): { login: string | undefined; key: string } {
  const match = /^(Basic|Bearer) ([^\s]+)$/i.exec(header.trim());
  if (!match) throw new DomainError('AUTH_FAILED');
  if (match[1]!.toLowerCase() !== 'basic') return { login: undefined, key: match[2]! };
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new DomainError('AUTH_FAILED');
  const login = decoded.slice(0, colon);
  if (!isStorableText(login)) throw new DomainError('AUTH_FAILED');
  return { login, key: decoded.slice(colon + 1) };
}

/** The authenticated account of a key found with its account, or the spec's 401. */
function accountOf(found: ApiKeyAccount | null, login: string | undefined): AuthAccount {
  if (!found || (login !== undefined && found.login !== login)) throw new DomainError('AUTH_FAILED');
  if (found.revoked) throw new DomainError('KEY_REVOKED');
  if (found.disabled) throw new DomainError('ACCOUNT_DISABLED');
  const plan = planOf(found.plan);
  return {
    id: found.accountId,
    login: found.login,
    plan: found.plan,
    keyId: found.keyId,
    limits: {
      requestsPerMinute: found.requestsPerMinute ?? plan.requestsPerMinute,
      tasksPerMinute: found.tasksPerMinute ?? plan.tasksPerMinute,
    },
  };
}

/**
 * Resolves the Authorization header to an account (one statement); `undefined` when there is no
 * header. Counts nothing (GraphQL rate limits each operation itself).
 * @throws AppError 40100 (malformed header, unknown key, login mismatch), 40101, 40102 (HTTP 401)
 */
export async function authenticate(db: Db, header: string | undefined): Promise<AuthAccount | undefined> {
  if (!header) return undefined;
  const { login, key } = credentials(header);
  return accountOf(await findApiKeyAccount(db.sql, hashApiKey(key)), login);
}

/**
 * Authenticates and counts the request and its `tasks` against the account's limits
 * (api-spec.md "Limits") in the same statement.
 * @throws AppError 401 as `authenticate`; 40202 (HTTP 429, Retry-After) over a limit.
 */
async function authenticateCounted(db: Db, header: string, rateLimits: AccountRateLimits, tasks: number): Promise<AuthAccount> {
  const { login, key } = credentials(header);
  const found = await findApiKeyAccountCounting(db.sql, hashApiKey(key), login, tasks);
  const account = accountOf(found, login);
  // `counted` is set whenever the key authenticates (the statement applies the same checks).
  if (found?.counted) await rateLimits.settle(account.id, account.limits, found.counted, tasks);
  else await rateLimits.consume(account.id, account.limits, tasks);
  return account;
}

/** The account of the request's Authorization header, counted against its limits when `rateLimits` is given. */
/**
 * The account of an Authorization header; undefined without one. With `rateLimits`, the request and
 * `body`'s task objects are counted in the same statement (REST).
 * @throws DomainError AUTH_FAILED / KEY_REVOKED / ACCOUNT_DISABLED; RATE_LIMITED over a limit.
 */
export async function resolveAccount(db: Db, header: string | undefined, rateLimits: AccountRateLimits | undefined, body: unknown): Promise<AuthAccount | undefined> {
  if (!header || !rateLimits) return authenticate(db, header);
  return authenticateCounted(db, header, rateLimits, taskObjects(body));
}
