/**
 * JSON embedded in the raw page (the twister's variation data, the image gallery's `colorImages`), read
 * from the page string without a DOM: script bodies are never part of the fragment document.
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

/** Every JSON value that follows `"key" :` in the raw page, in page order (strings unescaped only of their quotes). */
export function jsonValues(raw: string, key: string): unknown[] {
  const out: unknown[] = [];
  const re = new RegExp(`"${key}"\\s*:\\s*`, 'g');
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    const start = m.index + m[0].length;
    const c = raw[start];
    if (c === '"') {
      const end = raw.indexOf('"', start + 1);
      out.push(raw.slice(start + 1, end));
      continue;
    }
    const txt = jsonAt(raw, start);
    if (!txt) continue;
    try {
      out.push(JSON.parse(txt));
    } catch {
      /* not JSON */
    }
  }
  return out;
}
