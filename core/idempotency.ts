/**
 * Storage of the `Idempotency-Key` header (operations-contract.md; api/rest/middleware/idempotency.ts):
 * one `idempotency_keys` row per account and key. The row is inserted before the request runs
 * (insert-first reservation: of concurrent duplicates exactly one inserts it, the others find it),
 * then holds the first response for `IDEMPOTENCY_WINDOW_MS`. Each operation is one statement.
 */
import { createHash } from 'node:crypto';
import type { Statement } from './db/sql.js';
import type { Db } from './db/db.js';

/** A key: 1 to 255 visible ASCII characters (`!` to `~`; a UUID is the usual choice). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Hex SHA-256 of the endpoint and the parsed request (so whitespace and formatting do not matter):
 * what tells "the same request again" from "another request with the same key".
 */
export function idempotencyRequestHash(endpoint: string, request: unknown): string {
  return createHash('sha256').update(`${endpoint}\n${JSON.stringify(request)}`).digest('hex');
}

/** How long a key's first response is replayed: 24 hours, in ms. Older rows count as absent. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/** What reserving a key found. */
export type Reservation =
  /** The key is this request's: run it, then `completeIdempotentRequest` or `releaseIdempotencyKey`. */
  | { kind: 'reserved' }
  /** The same request was answered before: send this response again (HTTP status, body as sent). */
  | { kind: 'replay'; httpStatus: number; response: string }
  /** The same request is being answered right now (a concurrent duplicate). */
  | { kind: 'in_progress' }
  /** The key was used with another request (endpoint or body) within the window. */
  | { kind: 'mismatch' };

// A row older than the window is taken over as if it were absent.
const RESERVE: Statement = {
  name: 'idempotency:reserve',
  text: `WITH reserved AS (
      INSERT INTO idempotency_keys (account_id, key, request_hash) VALUES ($1::int, $2, $3)
      ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, http_status = NULL, response = NULL, created_at = now()
      WHERE idempotency_keys.created_at < now() - $4::int * interval '1 millisecond'
      RETURNING 1
    )
    SELECT count(*)::int AS reserved FROM reserved`,
};

const FIND: Statement = {
  name: 'idempotency:find',
  text: `SELECT request_hash, http_status, response FROM idempotency_keys
    WHERE account_id = $1::int AND key = $2 AND created_at >= now() - $3::int * interval '1 millisecond'`,
};

/**
 * Reserves `key` of the account for the request whose hash is `requestHash` (hex SHA-256 of its
 * endpoint and body), or finds what the key already holds.
 */
export async function reserveIdempotencyKey(db: Db, input: { accountId: number; key: string; requestHash: string }): Promise<Reservation> {
  const sql = db.sql;
  // A row released or expiring between the two statements is reserved on the next turn.
  for (let turn = 0; turn < 3; turn++) {
    const { rows } = await sql.query<{ reserved: number }>(RESERVE, [input.accountId, input.key, input.requestHash, IDEMPOTENCY_WINDOW_MS]);
    if (rows[0]?.reserved === 1) return { kind: 'reserved' };
    const found = (await sql.query<{ request_hash: string; http_status: number | null; response: string | null }>(FIND, [input.accountId, input.key, IDEMPOTENCY_WINDOW_MS])).rows[0];
    if (!found) continue;
    if (found.request_hash !== input.requestHash) return { kind: 'mismatch' };
    if (found.http_status === null || found.response === null) return { kind: 'in_progress' };
    return { kind: 'replay', httpStatus: found.http_status, response: found.response };
  }
  return { kind: 'in_progress' };
}

const COMPLETE: Statement = {
  name: 'idempotency:complete',
  text: `UPDATE idempotency_keys SET http_status = $3::int, response = $4 WHERE account_id = $1::int AND key = $2`,
};

/** Stores the response of a reserved key (`response`: the body exactly as sent). */
export async function completeIdempotentRequest(db: Db, input: { accountId: number; key: string; httpStatus: number; response: string }): Promise<void> {
  await db.sql.query(COMPLETE, [input.accountId, input.key, input.httpStatus, input.response]);
}

const RELEASE: Statement = {
  name: 'idempotency:release',
  text: `DELETE FROM idempotency_keys WHERE account_id = $1::int AND key = $2 AND response IS NULL`,
};

/** Frees a reserved key whose request was refused as a whole (it may be used again). */
export async function releaseIdempotencyKey(db: Db, input: { accountId: number; key: string }): Promise<void> {
  await db.sql.query(RELEASE, [input.accountId, input.key]);
}
