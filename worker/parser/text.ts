/** Text helpers shared by the field readers (product-page-contract.md "General rules"). */

const MARKS = /[\u200e\u200f\u200b\u200c\ufeff\u202a-\u202e\u2066-\u2069]/g;

/** Inline elements: their boundaries do not separate words. Every other element counts as a block boundary. */
export const INLINE_TAGS: ReadonlySet<string> = new Set([
  'A', 'ABBR', 'B', 'BDI', 'BDO', 'BIG', 'CITE', 'CODE', 'EM', 'FONT', 'I', 'IMG', 'KBD', 'LABEL', 'MARK', 'NOBR',
  'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRIKE', 'STRONG', 'SUB', 'SUP', 'TIME', 'TT', 'U', 'VAR', 'WBR',
]);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

/** Drops direction/zero-width marks, collapses whitespace runs to one space and trims. */
export function clean(s: string): string {
  return s.replace(MARKS, '').replace(/\s+/g, ' ').trim();
}

/** Raw text of a node (before `clean`): script/style never included; `<br>` and block boundaries become spaces. */
function rawText(node: Node, exclude?: (el: Element) => boolean): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) {
      out.push(n.nodeValue ?? '');
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    const el = n as Element;
    const tag = n.nodeType === 1 ? el.tagName : '';
    if (SKIP.has(tag)) return;
    if (tag && exclude?.(el)) return;
    if (tag === 'BR') {
      out.push(' ');
      return;
    }
    const block = tag !== '' && !INLINE_TAGS.has(tag);
    if (block) out.push(' ');
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
    if (block) out.push(' ');
  };
  walk(node);
  return out.join('');
}

/** Cleaned text of a node (`clean(rawText(node))`). */
export function textOf(node: Node | null | undefined, exclude?: (el: Element) => boolean): string {
  return node ? clean(rawText(node, exclude)) : '';
}

/** Details key: label without trailing colon, lower-cased, runs of non-letter/mark/digit characters -> `_`, trimmed of `_`. */
export function detailKey(label: string): string {
  return clean(label)
    .replace(/[:：]\s*$/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/** Parses an integer written with any grouping (`16,039`, `1.830`, `1 234`); null when no digits. */
export function parseGroupedInt(s: string): number | null {
  const m = /\d{1,3}(?:,\d{2})*(?:[.,\s\u00a0\u202f']\d{3})+(?!\d)|\d+/.exec(s);
  if (!m) return null;
  const digits = m[0].replace(/[^\d]/g, '');
  if (!digits) return null;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : null;
}
