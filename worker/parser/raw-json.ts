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

/**
 * Every match of `literal` + `rest` in `raw`, in page order, as the index just after the match.
 * Same matches as a global regular expression of both, found with `indexOf` first (the literal is rare
 * in a page of a megabyte; a regular expression scan costs twice as much there).
 * @param rest a sticky (`y`) expression tried right after each occurrence of the literal
 * @param before when given, the character before the literal must be one of these
 */
export function* matchesAfter(raw: string, literal: string, rest: RegExp, before?: string): Generator<number> {
  for (let i = raw.indexOf(literal); i >= 0; i = raw.indexOf(literal, i + 1)) {
    if (before !== undefined && (i === 0 || !before.includes(raw[i - 1]!))) continue;
    rest.lastIndex = i + literal.length;
    if (!rest.test(raw)) continue;
    const end = rest.lastIndex;
    yield end;
    i = end - 1;
  }
}

/** Whitespace, a colon, whitespace (after a JSON key). */
const KEY_COLON = /\s*:\s*/y;

/**
 * The first JSON value that follows `"key" :` in the raw page and passes `accept`, in page order (strings
 * unescaped only of their quotes; values that are not JSON are passed over); undefined when none does.
 * The page is searched only as far as that value.
 */
export function firstJsonValue<T>(raw: string, key: string, accept: (v: unknown) => v is T): T | undefined {
  for (const start of matchesAfter(raw, `"${key}"`, KEY_COLON)) {
    let value: unknown;
    if (raw[start] === '"') {
      value = raw.slice(start + 1, raw.indexOf('"', start + 1));
    } else {
      const txt = jsonAt(raw, start);
      if (!txt) continue;
      try {
        value = JSON.parse(txt);
      } catch {
        continue;
      }
    }
    if (accept(value)) return value;
  }
  return undefined;
}

const IDENT = /[A-Za-z_$][\w$]*/y;
const SINGLE_BODY = /(?:[^'\\]|\\[^])*/y;
const DOUBLE_BODY = /(?:[^"\\]|\\[^])*/y;
const ESCAPE = /\\(u[0-9a-fA-F]{4}|[^])/g;
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };
const unescapeOne = (_m: string, e: string): string =>
  e.length === 5 ? String.fromCharCode(Number.parseInt(e.slice(1), 16)) : (SIMPLE_ESCAPES[e] ?? e);
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Reads a JavaScript object or array literal that starts at `start` in `s` as JSON text: keys may be bare
 * identifiers or single-quoted, strings single- or double-quoted, trailing commas allowed (the image
 * block script of 2015-19 pages writes `colorImages: { initial: [{ hiRes: '…' }] }`). Only literals
 * count: any other expression (a call, a variable, an operator) gives null, as does an unbalanced literal.
 */
export function jsLiteralAt(s: string, start: number): string | null {
  if (s[start] !== '{' && s[start] !== '[') return null;
  const out: string[] = [];
  let depth = 0;
  for (let i = start; i < s.length && i < start + 2_000_000; ) {
    const c = s[i]!;
    if (c === '{' || c === '[') {
      depth++;
      out.push(c);
      i++;
    } else if (c === '}' || c === ']') {
      if (out.at(-1) === ',') out.pop();
      out.push(c);
      i++;
      if (--depth === 0) return out.join('');
    } else if (c === ',' || c === ':') {
      out.push(c);
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      const body = c === '"' ? DOUBLE_BODY : SINGLE_BODY;
      body.lastIndex = i + 1;
      const m = body.exec(s)!;
      const end = i + 1 + m[0].length;
      if (s[end] !== c) return null;
      out.push(JSON.stringify(m[0].replace(ESCAPE, unescapeOne)));
      i = end + 1;
    } else {
      NUMBER.lastIndex = i;
      IDENT.lastIndex = i;
      const num = NUMBER.exec(s);
      const word = num ? null : IDENT.exec(s);
      const token = num?.[0] ?? word?.[0];
      if (!token) return null;
      i += token.length;
      let k = i;
      while (k < s.length && /\s/.test(s[k]!)) k++;
      if (word && s[k] === ':') out.push(JSON.stringify(token));
      else if (num || token === 'true' || token === 'false' || token === 'null') out.push(token);
      else return null;
    }
  }
  return null;
}
