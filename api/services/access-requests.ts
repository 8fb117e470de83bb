/**
 * Public access requests and the one-time credentials link (api-spec.md "System and public",
 * "Limits": access request fields, 5 requests per hour per IP address).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../../core/db/db.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readRequestFields } from '../../core/validation/read-fields.js';
import { accessRequest } from '../../core/validation/requests.js';
import { STATUS } from '../../core/domain/status-codes.js';

/** Access requests accepted per IP address within `ACCESS_REQUEST_WINDOW_MS`. */
export const ACCESS_REQUESTS_PER_WINDOW = 5;
/** The rate window of access requests: one hour, in ms. */
export const ACCESS_REQUEST_WINDOW_MS = 3_600_000;
/** How long a credentials link can be read after approval: 7 days, in ms. */
export const CREDENTIALS_TTL_MS = 7 * 86_400_000;

/** A validated access request. `website` non-empty marks spam (the hidden form field). */
export type AccessRequestInput = z.output<typeof accessRequest>;

/**
 * Validates the body: a JSON object, or an array holding exactly one object.
 * @throws AppError 40000 for any other shape, 40501 naming the first invalid field.
 */
export function parseAccessRequest(body: unknown): { input: AccessRequestInput; received: Record<string, unknown> } {
  let element = body;
  if (Array.isArray(body)) {
    if (body.length !== 1) throw new DomainError('BAD_REQUEST', { message: 'Bad Request. The body must be one access request object.' });
    element = body[0];
  }
  if (element === null || typeof element !== 'object' || Array.isArray(element)) {
    throw new DomainError('BAD_REQUEST', { message: 'Bad Request. The body must be one access request object.' });
  }
  const received = element as Record<string, unknown>;
  return { input: readRequestFields(accessRequest, received), received };
}

/**
 * Seconds until `ip` may submit again, or 0 when it is under the limit. Runs inside the caller's
 * transaction, after the per-IP lock, on the database clock. The stored rows are the shared store:
 * every accepted request (spam included) is a row, refused ones are not.
 */
async function retryAfterSeconds(tx: Pick<PrismaClient, '$queryRaw'>, ip: string): Promise<number> {
  const windowSeconds = ACCESS_REQUEST_WINDOW_MS / 1000;
  const rows = await tx.$queryRaw<{ wait: number }[]>`
    SELECT ceil(extract(epoch FROM created_at + make_interval(secs => ${windowSeconds}) - now()))::int AS wait
    FROM access_requests
    WHERE ip = ${ip} AND created_at > now() - make_interval(secs => ${windowSeconds})
    ORDER BY created_at ASC`;
  if (rows.length < ACCESS_REQUESTS_PER_WINDOW) return 0;
  // Under the limit again once the row that keeps the window full has aged out.
  return Math.max(1, rows[rows.length - ACCESS_REQUESTS_PER_WINDOW]!.wait);
}

/**
 * POST /v1/public/access_request: stores the request (status `pending`, or `spam` when the
 * `website` trap is filled — answered exactly like a success).
 * @param ip the client address (`ctx.ip`: the peer, or X-Forwarded-For behind the TRUST_PROXY hops), at most 64 characters kept.
 * @throws AppError 40000 / 40501 for bad input, 40202 (HTTP 429, Retry-After seconds) past 5 per hour per IP.
 */
export async function submitAccessRequest(db: Db, body: unknown, ip: string): Promise<BatchOutcome> {
  const { input, received } = parseAccessRequest(body);
  const clientIp = ip.slice(0, 64) || 'unknown';
  const spam = Boolean(input.website);
  const id = await db.prisma.$transaction(async (tx) => {
    // Serialises the count-then-insert of one IP across API processes (released at commit).
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(7301, hashtext(${clientIp}))`;
    const wait = await retryAfterSeconds(tx, clientIp);
    if (wait > 0) throw new DomainError('RATE_LIMITED', { retryAfterSeconds: wait });
    const row = await tx.accessRequest.create({
      data: {
        email: input.email,
        name: input.name || null,
        company: input.company || null,
        useCase: input.use_case || null,
        ip: clientIp,
        status: spam ? 'spam' : 'pending',
      },
      select: { id: true },
    });
    return row.id;
  });
  const data = { ...received, api: 'public', function: 'access_request' };
  const task = taskOutcome({ id: newTaskId(), code: STATUS.OK, path: ['v1', 'public', 'access_request'], data, result: [{ id, status: 'received' }] });
  return batchOutcome([task]);
}

/** Hex SHA-256 of a credentials token, the only form of the token stored (the row's lookup key). */
export function hashCredentialsToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The login and API key a credentials link shows once. */
export interface Credentials {
  login: string;
  api_key: string;
}

/** Prefix of a sealed payload: AES-256-GCM, fields base64url, `.`-separated (iv, tag, ciphertext). */
const SEALED_PREFIX = 'aes256gcm.';

/** The payload's encryption key: HKDF-SHA256 of the token, which only the link holds. */
function payloadKey(token: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(token, 'utf8'), Buffer.alloc(0), 'retail-data-api credentials payload', 32));
}

/**
 * Encrypts the credentials for storage under a key derived from the link's token: the database
 * never holds the API key in plaintext, and without the link the stored text cannot be read. The
 * token's hash (the row's lookup key) is the authenticated data, so a payload only opens on its row.
 */
export function sealCredentials(token: string, credentials: Credentials): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', payloadKey(token), iv);
  cipher.setAAD(Buffer.from(hashCredentialsToken(token), 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return SEALED_PREFIX + [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url')).join('.');
}

/**
 * Decrypts a payload sealed by `sealCredentials` with the link's token. A payload that is plain
 * JSON (stored before payloads were sealed) is read as it is.
 * @throws Error when the payload does not open with this token
 */
export function openCredentials(token: string, stored: string): Credentials {
  if (!stored.startsWith(SEALED_PREFIX)) return JSON.parse(stored) as Credentials;
  const [iv, tag, ciphertext] = stored.slice(SEALED_PREFIX.length).split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', payloadKey(token), iv!);
  decipher.setAAD(Buffer.from(hashCredentialsToken(token), 'utf8'));
  decipher.setAuthTag(tag!);
  return JSON.parse(Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8')) as Credentials;
}

/**
 * GET /v1/public/credentials/:token: returns `{ login, api_key }` once. One conditional UPDATE
 * takes and erases the sealed payload, so of two concurrent reads only one gets it and nothing of
 * the key stays stored; unknown, already read or expired (7 days after approval) tokens answer
 * 404 / 40400, and an expired payload is erased.
 */
export async function readCredentials(db: Db, token: string): Promise<BatchOutcome> {
  const hash = hashCredentialsToken(token);
  const ttlSeconds = CREDENTIALS_TTL_MS / 1000;
  const rows = await db.prisma.$queryRaw<{ payload: string }[]>`
    WITH target AS (
      SELECT id, credentials_payload FROM access_requests
      WHERE credentials_token_hash = ${hash} AND credentials_payload IS NOT NULL AND credentials_read_at IS NULL
        AND approved_at > now() - make_interval(secs => ${ttlSeconds})
      FOR UPDATE)
    UPDATE access_requests a SET credentials_payload = NULL, credentials_read_at = now()
    FROM target WHERE a.id = target.id AND a.credentials_payload IS NOT NULL
    RETURNING target.credentials_payload AS payload`;
  const payload = rows[0]?.payload;
  if (!payload) {
    await db.prisma.$executeRaw`
      UPDATE access_requests SET credentials_payload = NULL
      WHERE credentials_token_hash = ${hash} AND credentials_payload IS NOT NULL`;
    throw new DomainError('NOT_FOUND');
  }
  const { login, api_key } = openCredentials(token, payload);
  const data = { api: 'public', function: 'credentials' };
  const task = taskOutcome({ id: newTaskId(), code: STATUS.OK, path: ['v1', 'public', 'credentials'], data, result: [{ login, api_key }] });
  return batchOutcome([task]);
}
