/**
 * Text the database can store as it was received. PostgreSQL refuses U+0000 in `text` and `jsonb`
 * (SQLSTATE 22021 / 22P05) and an unpaired UTF-16 surrogate in `jsonb`; in `text` the driver would
 * silently store U+FFFD in its place. Input carrying either is refused where it enters the service
 * (core/validation/read-fields.ts for every field of every endpoint, api/rest/middleware/auth.ts for the
 * Basic login), so a request never fails inside a statement and nothing is stored altered.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` holds neither U+0000 nor an unpaired surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * True when every string in a JSON value (object keys included, at any depth) is storable text.
 * Values that are not strings, arrays or objects are storable.
 */
export function isStorableValue(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableValue);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, inner]) => isStorableText(key) && isStorableValue(inner));
  }
  return true;
}

/**
 * A field name (or a message quoting input) fit for an error message: unstorable characters become
 * U+FFFD and text longer than `max` (64) characters is cut (a key of a request body can be anything
 * up to the body limit).
 */
export function printableName(name: string, max = 64): string {
  const clean = name.replaceAll('\u0000', '\uFFFD').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
