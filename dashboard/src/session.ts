/**
 * The API key of the session: entered once on the login screen and kept in sessionStorage (gone
 * when the tab closes), sent as `Authorization: Bearer <key>` on every GraphQL request, the
 * scheme the API accepts beside HTTP Basic (api-spec.md "Authentication").
 */
const KEY = 'rda.apiKey';

/** The stored key, or null before login. */
export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
