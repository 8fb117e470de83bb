/** Display formats of the dashboard: USD amounts, prices, instants and numbers (the browser's locale). */

/** USD with 4 decimals: task prices are fractions of a cent. */
export function usd(amount: number): string {
  return `$${amount.toFixed(4)}`;
}

export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** An ISO instant as a short UTC date-time (2026-01-31 12:00). */
export function when(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : '—';
}

export function count(n: number): string {
  return new Intl.NumberFormat().format(n);
}
