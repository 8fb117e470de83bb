/**
 * A tiny HTTP client for black-box API tests (fetch with Basic or Bearer auth).
 */
export interface ApiClient {
  get(path: string): Promise<{ status: number; body: any; headers: Headers }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }>;
}

export function apiClient(baseUrl: string, auth?: { login?: string; key: string }): ApiClient {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth?.login) headers.authorization = `Basic ${Buffer.from(`${auth.login}:${auth.key}`).toString('base64')}`;
  else if (auth) headers.authorization = `Bearer ${auth.key}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
  return { get: (p) => call('GET', p), post: (p, b) => call('POST', p, b) };
}

/** Polls `fn` every `everyMs` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
