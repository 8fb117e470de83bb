/**
 * API keys: a fixed live prefix plus 40 URL-safe characters; only the SHA-256 hash is stored
 * (api-spec.md "Authentication" 3).
 */
import { createHash, randomBytes } from 'node:crypto';

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
