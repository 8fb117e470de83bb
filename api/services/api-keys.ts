/**
 * POST /v1/appendix/keys and DELETE /v1/appendix/keys/{key_id} (api-spec.md "Appendix endpoints",
 * "API key status", "Authentication" 3, "Limits": 20 active keys, label max 100). Keys cost nothing.
 * Both run under a row lock on the account, so concurrent requests can neither exceed 20 active
 * keys nor revoke the last one.
 */
import { apiKeyRecord, generateApiKey } from '../../core/api-keys.js';
import type { Db } from '../../core/db/db.js';
import type { Prisma } from '../../core/db/prisma.js';
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, taskOutcome, type BatchOutcome, type TaskOutcome } from '../../core/domain/outcomes.js';
import { readRequestFields, readTaskFields } from '../../core/validation/read-fields.js';
import { keyCreateTask, keyIdParams } from '../../core/validation/requests.js';
import { failRequestIfNoneValid, taskArray } from '../../core/validation/task-body.js';
import { STATUS } from '../../core/domain/status-codes.js';

/** Active API keys per account (api-spec.md "Limits"). */
export const MAX_ACTIVE_KEYS = 20;

const PATH = ['v1', 'appendix', 'keys'];
/** Generous waits: the embedded database is a single connection shared by concurrent requests. */
const TX_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

/** A key as listed (user_data) — never the full key nor its hash. */
export interface KeyListing {
  id: number;
  prefix: string;
  last4: string;
  label: string | null;
  created_at: string;
}

/** Maps a stored key to its listing. */
export function keyListing(row: { id: number; prefix: string; last4: string; label: string | null; createdAt: Date }): KeyListing {
  return { id: row.id, prefix: row.prefix, last4: row.last4, label: row.label, created_at: row.createdAt.toISOString() };
}

/** Takes the account's row lock for the rest of the transaction. */
async function lockAccount(tx: Prisma.TransactionClient, accountId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
}

/**
 * POST keys: one new key per element. Result of each task: `[{ id, key, prefix, last4, label,
 * created_at }]`, the only place the full key ever appears. Task-level 40501 `label` (not a string
 * or null, or longer than 100); 40000 once the account has 20 active keys.
 * @throws AppError 40000 / 40001 for a body that is not an array of 1..100 objects; 400 / 40501
 *   `label` when every element has a bad label (the project's rule for POST bodies, see
 *   failRequestIfNoneValid).
 */
export async function createKeys(db: Db, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const tasks: TaskOutcome[] = [];
  const errors: (DomainError | undefined)[] = [];
  for (const element of elements) {
    const id = newTaskId();
    const data = { ...element, api: 'appendix', function: 'keys' };
    try {
      const { label } = readTaskFields(keyCreateTask, element);
      const key = generateApiKey();
      const row = await db.prisma.$transaction(async (tx) => {
        await lockAccount(tx, account.id);
        const active = await tx.apiKey.count({ where: { accountId: account.id, revokedAt: null } });
        if (active >= MAX_ACTIVE_KEYS) throw new DomainError('BAD_REQUEST', { message: `Bad Request. The account already has ${MAX_ACTIVE_KEYS} active API keys.` });
        return tx.apiKey.create({ data: { accountId: account.id, ...apiKeyRecord(key), label } });
      }, TX_OPTIONS);
      const { id: keyId, ...listing } = keyListing(row);
      errors.push(undefined);
      tasks.push(taskOutcome({ id, code: STATUS.OK, path: PATH, data, result: [{ id: keyId, key, ...listing }] }));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push(error);
      tasks.push(taskOutcome({ id, code: error.code, message: error.message, path: PATH, data }));
    }
  }
  failRequestIfNoneValid(errors);
  return batchOutcome(tasks);
}

/** Reads the `key_id` path parameter: an integer from 1 to 2^31-1, else request-level 40501. */
export function parseKeyId(raw: string | undefined): number {
  return readRequestFields(keyIdParams, { key_id: raw }).key_id;
}

/**
 * DELETE keys/{key_id}: revokes one of the account's active keys; the result lists it with
 * `revoked_at`. HTTP 404 / 40400 when the id is not an active key of the account. Task-level
 * 40000 when the revocation would leave the account without an active key (the only active key
 * revoking itself).
 */
export async function revokeKey(db: Db, account: AuthAccount, rawKeyId: string | undefined): Promise<BatchOutcome> {
  const keyId = parseKeyId(rawKeyId);
  const id = newTaskId();
  const path = [...PATH, String(keyId)];
  const data = { key_id: keyId, api: 'appendix', function: 'keys' };
  const outcome = await db.prisma.$transaction(async (tx) => {
    await lockAccount(tx, account.id);
    const key = await tx.apiKey.findFirst({ where: { id: keyId, accountId: account.id, revokedAt: null } });
    if (!key) throw new DomainError('NOT_FOUND');
    const others = await tx.apiKey.count({ where: { accountId: account.id, revokedAt: null, id: { not: keyId } } });
    if (others === 0) return null;
    return tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
  }, TX_OPTIONS);
  if (!outcome) {
    const message = 'Bad Request. The only active API key cannot be revoked.';
    return batchOutcome([taskOutcome({ id, code: STATUS.BAD_REQUEST, message, path, data })]);
  }
  const result = [{ ...keyListing(outcome), revoked_at: outcome.revokedAt!.toISOString() }];
  return batchOutcome([taskOutcome({ id, code: STATUS.OK, path, data, result })]);
}
