/**
 * API keys: a fixed live prefix plus 40 URL-safe characters; only the SHA-256 hash is stored
 * (api-spec.md "Authentication" 3).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql, Statement } from './db/sql.js';
import { countedFromRow, countingParams, countingSql, type CountedColumns, type CountedRequest } from './rate-limits.js';

/** The fixed live prefix of every key. */
export const API_KEY_PREFIX = 'rda_live_';

/** A new key: prefix + 40 base64url characters (30 random bytes). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(30).toString('base64url');
}

/** Hex SHA-256 of a key, the only form stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Columns stored for a new key. */
export function apiKeyRecord(key: string): { keyHash: string; prefix: string; last4: string } {
  return { keyHash: hashApiKey(key), prefix: API_KEY_PREFIX, last4: key.slice(-4) };
}

/** A key with its account, as authentication needs it (api-spec.md "Authentication"). */
export interface ApiKeyAccount {
  keyId: number;
  revoked: boolean;
  accountId: number;
  login: string;
  plan: string;
  disabled: boolean;
  /** Per-account overrides of the plan's limits per minute; null = plan default. */
  requestsPerMinute: number | null;
  tasksPerMinute: number | null;
}

const KEY_WITH_ACCOUNT_SQL = `SELECT k.id AS "keyId", k.revoked_at IS NOT NULL AS revoked, a.id AS "accountId", a.login, a.plan, a.disabled,
    a.requests_per_minute AS "requestsPerMinute", a.tasks_per_minute AS "tasksPerMinute"
    FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`;

const KEY_WITH_ACCOUNT: Statement = { name: 'auth:key-with-account', text: KEY_WITH_ACCOUNT_SQL };

/**
 * The key whose SHA-256 hash is `keyHash`, with its account, in one statement and never cached
 * ("A revoked key stops working immediately"); null when no key has that hash.
 */
export async function findApiKeyAccount(sql: Sql, keyHash: string): Promise<ApiKeyAccount | null> {
  const { rows } = await sql.query<ApiKeyAccount>(KEY_WITH_ACCOUNT, [keyHash]);
  return rows[0] ?? null;
}

// The key with its account and, when it authenticates (active key, enabled account, matching
// login if one was sent), the request (and its tasks) counted against the account's windows.
const AUTHENTICATED_ACCOUNT = 'SELECT "accountId" AS account_id FROM k WHERE NOT revoked AND NOT disabled AND ($2::text IS NULL OR login = $2::text)';

function countedStatement(name: string, withTasks: boolean): Statement {
  const counting = countingSql(AUTHENTICATED_ACCOUNT, { now: '$3::bigint', end: '$4::bigint', ...(withTasks && { tasks: '$5::int' }) });
  return { name, text: `WITH k AS (${KEY_WITH_ACCOUNT_SQL}), ${counting.ctes} SELECT k.*, ${counting.columns} FROM k` };
}

const KEY_WITH_ACCOUNT_COUNTED = countedStatement('auth:key-with-account-counted', false);
const KEY_WITH_ACCOUNT_COUNTED_TASKS = countedStatement('auth:key-with-account-counted-tasks', true);

/**
 * `findApiKeyAccount` that also counts the request and its `tasks` task objects against the
 * account's rate-limit windows in the same statement when the key authenticates (`login`: the
 * Basic login, which must match); `counted` is null when it does not (nothing was counted).
 */
export async function findApiKeyAccountCounting(
  sql: Sql, keyHash: string, login: string | undefined, tasks: number,
): Promise<(ApiKeyAccount & { counted: CountedRequest | null }) | null> {
  const p = countingParams(tasks);
  const { rows } = tasks > 0
    ? await sql.query<ApiKeyAccount & CountedColumns>(KEY_WITH_ACCOUNT_COUNTED_TASKS, [keyHash, login ?? null, p.now, p.end, p.tasks])
    : await sql.query<ApiKeyAccount & CountedColumns>(KEY_WITH_ACCOUNT_COUNTED, [keyHash, login ?? null, p.now, p.end]);
  const row = rows[0];
  if (!row) return null;
  const { requestPoints, requestWindowEnd, taskPoints, taskWindowEnd, ...found } = row;
  return { ...found, counted: countedFromRow({ requestPoints, requestWindowEnd, taskPoints, taskWindowEnd }) };
}
