/**
 * Cheap string passes that run before the DOM is built. Script and style bodies are never part of a
 * field (the twister JSON is read from the raw string), so they are emptied, and comments are dropped:
 * jsdom then builds far fewer and far smaller nodes. Applied to the whole page (pages read whole, see
 * `index.ts`) and to each part the fragment pass keeps (`fragments.ts`).
 *
 * The scan follows the HTML tokenizer closely enough to be safe on Amazon pages: it honours quoted
 * attribute values (which often hold escaped markup such as `<script>`), comments, and raw-text
 * elements (`script`, `style`, `textarea`, `title`, `xmp`, `iframe`, `noembed`, `noframes`).
 */

const RAW_TEXT = /^(script|style|textarea|title|xmp|iframe|noembed|noframes)(?=[\s/>])/i;
const DROP_BODY = new Set(['script', 'style']);

/** End index (exclusive) of the tag starting at `lt` (`s[lt] === '<'`), honouring quoted attribute values. */
function tagEnd(s: string, lt: number): number {
  let i = lt + 1;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 62 /* > */) return i + 1;
    if (c === 61 /* = */) {
      i++;
      while (i < n && /\s/.test(s[i]!)) i++;
      const q = s[i];
      if (q === '"' || q === "'") {
        const close = s.indexOf(q, i + 1);
        if (close < 0) return n;
        i = close + 1;
        continue;
      }
      continue;
    }
    i++;
  }
  return n;
}

/** Empties every `<script>` and `<style>` body and drops comments; everything else is copied unchanged. */
export function stripScriptsAndStyles(html: string): string {
  const out: string[] = [];
  let pos = 0;
  const n = html.length;
  while (pos < n) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      out.push(html.slice(pos, lt));
      const end = html.indexOf('-->', lt + 4);
      pos = end < 0 ? n : end + 3;
      continue;
    }
    const isTagStart = (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 47 || next === 33 || next === 63;
    if (!isTagStart) {
      out.push(html.slice(pos, lt + 1));
      pos = lt + 1;
      continue;
    }
    const end = tagEnd(html, lt);
    const raw = RAW_TEXT.exec(html.slice(lt + 1, lt + 12));
    if (!raw || html[end - 2] === '/') {
      out.push(html.slice(pos, end));
      pos = end;
      continue;
    }
    const name = raw[1]!.toLowerCase();
    const closeRe = new RegExp(`</${name}(?=[\\s/>])`, 'ig');
    closeRe.lastIndex = end;
    const close = closeRe.exec(html);
    const closeStart = close ? close.index : n;
    const closeEnd = close ? tagEnd(html, closeStart) : n;
    if (DROP_BODY.has(name)) {
      out.push(html.slice(pos, lt));
      if (name === 'script') out.push(html.slice(lt, end), '</script>');
    } else {
      out.push(html.slice(pos, closeEnd));
    }
    pos = closeEnd;
  }
  out.push(html.slice(pos));
  return out.join('');
}

/**
 * Block elements whose start and end are a word break for every text reader (`textOf`, the rank reader's
 * line split); table cells are not (the rank reader joins a row's cells into one line).
 */
const BLOCK = 'div|ul|ol|li|table|tbody|thead|tfoot|tr|p|h[1-6]|section|dl|dt|dd|form';
const BLOCK_WHITESPACE = new RegExp(`(<\\/?(?:${BLOCK})(?:[\\t\\n\\f\\r /][^>]*)?>)\\s+(?=<)|(>)\\s+(?=<\\/?(?:${BLOCK})[\\t\\n\\f\\r />])`, 'gi');

/**
 * Drops whitespace-only text between a block element's tag and the next or previous tag: the readers
 * see a word break there anyway, and the whitespace would be a text node in every gap of the document
 * (most of the fragment document's text nodes).
 */
export function withoutBlockWhitespace(html: string): string {
  return html.replace(BLOCK_WHITESPACE, (_m, tag: string | undefined, gt: string | undefined) => tag ?? gt ?? '');
}
