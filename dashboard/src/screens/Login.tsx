/**
 * Login: the API key is checked with `me` before it is kept in sessionStorage, so a mistyped key
 * is refused here rather than on every screen.
 */
import { useState } from 'preact/hooks';
import { graphql, request } from '../graphql.ts';
import { forgetKey, storeKey } from '../session.ts';

const WhoAmI = graphql(`query WhoAmI { me { login } }`);

export function Login({ onLogin, notice }: { onLogin(key: string): void; notice?: string | undefined }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    storeKey(key.trim());
    try {
      await request(WhoAmI, {});
      onLogin(key.trim());
    } catch (e) {
      forgetKey();
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <h1>retail-data-api</h1>
      {notice ? <p class="error" role="alert" data-testid="login-notice">{notice}</p> : null}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" required value={key} onInput={(e) => { setKey(e.currentTarget.value); setError(undefined); }} placeholder="rda_live_…" />
        <p class="muted">Kept in this tab's session storage only, sent with every request.</p>
        <button type="submit" disabled={busy || !key.trim()}>Log in</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
      </form>
    </main>
  );
}
