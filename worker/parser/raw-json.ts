/**
 * JSON embedded in the raw page (the image gallery's `colorImages`), read from the page string without a
 * DOM: script bodies are never part of the fragment document.
 */

/** Reads the JSON value (object or array) that starts at `start` in `s`, balancing brackets and strings; null when unbalanced. */
export function jsonAt(s: string, start: number): string | null {
  const open = s[start];
  if (open !== '{' && open !== '[') return null;
  let depth = 0;
  let inStr = false;
  for (let i = start; i < s.length && i < start + 2_000_000; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return s.slice(start, i + 1);
    }
  }
  return null;
}
