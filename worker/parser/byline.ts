/** `byline`: contributor names or the brand under the title (product-page-contract.md "byline"). */
import type { PageParts } from './page-parts.js';
import { BRAND_WRAPPERS } from './locale.js';
import { query } from './query.js';
import { clean, textOf } from './text.js';

/** What `readByline` reads (the 2008–2014-era `.buying` / `.content` block around `#btAsinTitle` is kept by `fragments.ts`). */
export const BYLINE_PARTS: PageParts = { ids: ['bylineInfo', 'byline', 'brand', 'bylineInfo_feature_div', 'btAsinTitle'] };

/** Longest wrappers first, so `Visite a loja da X` wins over `Visite a loja X`. */
const WRAPPERS = [...BRAND_WRAPPERS].sort((a, b) => b[0].length + b[1].length - (a[0].length + a[1].length));

/** Removes a localized store/brand wrapper (`Visit the X Store` -> `X`, `Marke: X` -> `X`). */
export function unwrapBrand(text: string): string {
  const t = clean(text);
  const lower = t.toLowerCase();
  for (const [prefix, suffix] of WRAPPERS) {
    if (lower.startsWith(prefix) && lower.endsWith(suffix) && lower.length > prefix.length + suffix.length) {
      return clean(t.slice(prefix.length, t.length - suffix.length));
    }
  }
  return t;
}

/** Strips a trailing role (`Brian W. Kernighan (Author)` -> `Brian W. Kernighan`) and separators. */
export function stripRole(name: string): string {
  return clean(clean(name).replace(/(?:\s*\([^()]*\)\s*,?)+$/u, '').replace(/[,、]\s*$/, ''));
}

function contributorName(author: Element): string {
  const named = author.querySelector('a.contributorNameID');
  if (named) return textOf(named);
  for (const a of author.querySelectorAll('a')) {
    if (a.closest('.a-popover-preload, .contribution')) continue;
    const t = textOf(a);
    if (t) return t;
  }
  return textOf(author, (el) => el.matches('.contribution, .a-popover-preload'));
}

/** Reads the byline names in page order, each once. */
export function readByline(doc: Document): string[] {
  const names: string[] = [];
  const add = (n: string): void => {
    const v = stripRole(n);
    if (v && !names.includes(v)) names.push(v);
  };
  const box = query(doc, ['#bylineInfo']) ?? query(doc, ['#byline']);
  if (box) {
    const authors = box.querySelectorAll('.author');
    if (authors.length) {
      for (const a of authors) add(contributorName(a));
      return names;
    }
    const link = box.matches('a') ? box : box.querySelector('a');
    const t = link ? textOf(link) : '';
    if (t) add(unwrapBrand(t));
    else {
      // A brand line without a link counts only when it carries a known wrapper (`Brand: X`).
      const whole = textOf(box);
      const unwrapped = unwrapBrand(whole);
      if (unwrapped !== whole) add(unwrapped);
    }
    return names;
  }
  const brand = query(doc, ['#brand', '#bylineInfo_feature_div a']);
  if (brand && textOf(brand)) {
    add(unwrapBrand(textOf(brand)));
    return names;
  }
  // 2008–2014-era layouts: contributor links right after the title heading.
  const title = query(doc, ['#btAsinTitle']);
  const block = title?.closest('.buying, .content');
  if (block) for (const a of block.querySelectorAll('a')) if (isContributorLink(a, title!)) add(textOf(a));
  return names;
}

/**
 * In the 2008–2014-era title block, a contributor link: an author search link (`field-author=`), or
 * any link outside the title heading followed by its role in parentheses (`Kristen Bell (Actor)`,
 * `<span class="byLinePipe">(Director)</span>`, `原 悠 (著)`). Other links of the block (review
 * counts, "See all formats") carry no role and are not names.
 */
function isContributorLink(a: Element, title: Element): boolean {
  if (a.contains(title) || title.contains(a) || a.closest('h1') !== null) return false;
  if ((a.getAttribute('href') ?? '').includes('field-author')) return true;
  let next: Node | null = a.nextSibling;
  while (next && next.nodeType === 3 && !(next.nodeValue ?? '').trim()) next = next.nextSibling;
  if (!next) return false;
  const t = next.nodeType === 3 ? clean(next.nodeValue ?? '') : next.nodeType === 1 ? textOf(next) : '';
  return /^\([^()]+\)/.test(t);
}
