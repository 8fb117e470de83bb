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
  const clean = storableText(name);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * `text` as the database stores it: each U+0000 and each unpaired surrogate replaced by U+FFFD (what
 * the driver itself does to an unpaired surrogate in a `text` value). For what the service stores
 * from pages it read (a parser's output), where refusing the read would lose it.
 */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.replaceAll('\u0000', '\uFFFD').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}

/** A JSON value with `storableText` applied to every string in it (object keys included, at any depth). */
export function storableValue<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableValue) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [storableText(key), storableValue(inner)])) as T;
  }
  return value;
}
