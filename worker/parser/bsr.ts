/** `bsr`: Best Sellers Rank in any layout and language (product-page-contract.md "bsr"). */
import type { Bsr, CategoryRank } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { BSR_LABELS, BSR_WHOLE_LABELS, RANK_CONNECTORS, SEE_TOP_PHRASES, containsAny } from './locale.js';
import { query, queryAll } from './query.js';
import { INLINE_TAGS, clean, parseGroupedInt, textOf } from './text.js';
import { closest, selectOne } from './select.js';

/** One visual line of the rank block: its text and its (non top-100) links. */
interface Line {
  parts: string[];
  links: string[];
}

/** `#SalesRank`; rank labels found by text (`findBsrBlock`) are kept by `fragments.ts` with their row. */
export const BSR_PARTS: PageParts = { ids: ['SalesRank'] };

/** True when a label text names the Best Sellers Rank. */
export function isBsrLabel(label: string): boolean {
  const l = clean(label).toLowerCase();
  if (l.length === 0 || l.length >= 80) return false;
  return containsAny(l, BSR_LABELS) || BSR_WHOLE_LABELS.includes(l.replace(/[\s:：]+$/, ''));
}

/** Elements `findBsrBlock` reads as rank labels when the page has no `#SalesRank`. */
const LABEL_CANDIDATES = 'th, td.label, b, .a-text-bold, span.a-size-base.a-text-bold';

/** Finds the rank block: the value element and the label element to leave out. */
export function findBsrBlock(doc: Document): { value: Element; label: Element | null } | null {
  const sales = query(doc, ['#SalesRank']);
  if (sales) {
    const label = selectOne(sales, 'b, .a-text-bold, td.label, th');
    const value = selectOne(sales, 'td.value') ?? sales;
    return { value, label: value === sales ? label : null };
  }
  for (const el of queryAll(doc, [LABEL_CANDIDATES])) {
    if (!isBsrLabel(el.textContent ?? '')) continue;
    if (el.tagName === 'TH' || el.tagName === 'TD') {
      const td = el.nextElementSibling;
      if (td) return { value: td, label: null };
      continue;
    }
    const li = closest(el, 'li, tr, div.content, td');
    if (li) return { value: li, label: el };
  }
  return null;
}

/** Splits the rank block into lines at `<br>` and block boundaries. */
function splitLines(root: Element, label: Element | null): Line[] {
  const lines: Line[] = [{ parts: [], links: [] }];
  const cur = (): Line => lines[lines.length - 1]!;
  const brk = (): void => {
    if (cur().parts.length || cur().links.length) lines.push({ parts: [], links: [] });
  };
  const walk = (n: Node): void => {
    if (n.nodeType === 3) {
      cur().parts.push(n.nodeValue ?? '');
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n as Element;
    if (el === label || el.tagName === 'SCRIPT' || el.tagName === 'STYLE') return;
    if (el.tagName === 'BR') return brk();
    if (el.tagName === 'A') {
      const t = textOf(el);
      const isTop = containsAny(t.toLowerCase(), SEE_TOP_PHRASES);
      if (isTop) return; // drop the link, its surrounding parentheses are removed later
      if (t) cur().links.push(t);
      cur().parts.push(` ${t} `);
      return;
    }
    const block = !INLINE_TAGS.has(el.tagName) && el.tagName !== 'TD' && el.tagName !== 'TH' && el.tagName !== 'NOBR';
    if (block) brk();
    for (let c = el.firstChild; c; c = c.nextSibling) walk(c);
    if (block) brk();
  };
  walk(root);
  return lines.filter((l) => l.parts.length);
}

const RANK_RE = /(?:#|nr\.?|n[°º]|n\.[°º]?)?\s*(\d{1,3}(?:[.,\s\u00a0\u202f]\d{3})+(?!\d)|\d+)\s*(位)?/i;

/** Reads one line into a rank and category; null when the line holds no rank or no category. */
function readLine(line: Line): CategoryRank | null {
  let text = clean(line.parts.join(''));
  text = clean(text.replace(/\(\s*\)/g, ' ').replace(/[:：]\s*$/, ''));
  const m = RANK_RE.exec(text);
  if (!m) return null;
  const rank = parseGroupedInt(m[1]!);
  if (rank === null) return null;
  let category: string;
  if (line.links.length) {
    category = line.links[line.links.length - 1]!;
  } else if (m[2]) {
    // Japanese: `本 - 1,830位` or `本で1,613位`
    category = clean(text.slice(0, m.index).replace(/(?:\s-\s*|で|:)\s*$/, ''));
    if (!category) category = clean(text.slice(m.index + m[0].length).replace(/\(.*$/, ''));
  } else {
    let rest = text.slice(m.index + m[0].length);
    const conn = new RegExp(`^.*?\\b(?:${RANK_CONNECTORS.join('|')})\\s+`, 'iu').exec(rest);
    if (conn) rest = rest.slice(conn[0].length);
    category = clean(rest.replace(/\(.*$/, ''));
  }
  category = clean(category.replace(/^[-–—>›:]\s*/, ''));
  return category ? { rank, category } : null;
}

/** Reads the Best Sellers Rank; null when the page has none. */
export function readBsr(doc: Document): Bsr | null {
  const block = findBsrBlock(doc);
  if (!block) return null;
  const ranks: CategoryRank[] = [];
  for (const line of splitLines(block.value, block.label)) {
    const r = readLine(line);
    if (r) ranks.push(r);
  }
  const [main, ...subs] = ranks;
  return main ? { rank: main.rank, category: main.category, subcategories: subs } : null;
}
