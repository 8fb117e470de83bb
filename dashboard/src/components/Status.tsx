/** Loading and error notes shared by the screens (an error is announced to screen readers). */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  return <p class="error" role="alert">{error.message}</p>;
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" aria-live="polite">Loading {what}…</p>;
}
