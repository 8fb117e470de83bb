/** `byline`: contributor names or the brand under the title (product-page-contract.md "byline"). */
import type { PageParts } from './page-parts.js';
import { BRAND_WRAPPERS } from './locale.js';
import { query } from './query.js';
import { clean, textOf } from './text.js';
import { closest, matches, selectAll, selectOne } from './select.js';

/** What `readByline` reads (the `.buying` block or `.content` around an older `#btAsinTitle` is kept by `fragments.ts`). */
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
  const named = selectOne(author, 'a.contributorNameID');
  if (named) return textOf(named);
  for (const a of selectAll(author, 'a')) {
    if (closest(a, '.a-popover-preload, .contribution')) continue;
    const t = textOf(a);
    if (t) return t;
  }
  return textOf(author, (el) => matches(el, '.contribution, .a-popover-preload'));
}

/**
 * A byline link of the older layouts: an author search (`field-author=`), the author's page
 * (`/Reza-Aslan/e/B001JONKIK`) or a brand search (`field-brandtextbin=Amazon`).
 */
const isBylineLink = (href: string): boolean =>
  href.includes('field-author') || href.includes('field-brandtextbin') || /\/e\/[A-Z0-9]{10}(?:[/?#]|$)/.test(href);

/**
 * The brand a store link names in its address (`…&field-lbr_brands_browse-bin=Fruit+of+the+Loom`), for a
 * brand line that shows only the brand's logo; null when the address names none.
 */
function brandOfLink(link: Element): string | null {
  const m = /[?&]field-lbr_brands_browse-bin=([^&#]+)/.exec(link.getAttribute('href') ?? '');
  if (!m) return null;
  try {
    return clean(decodeURIComponent(m[1]!.replace(/\+/g, ' '))) || null;
  } catch {
    return null;
  }
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
    const authors = selectAll(box, '.author');
    if (authors.length) {
      for (const a of authors) add(contributorName(a));
      return names;
    }
    const link = matches(box, 'a') ? box : selectOne(box, 'a');
    const t = link ? textOf(link) || (brandOfLink(link) ?? '') : '';
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
  const brandName = brand ? textOf(brand) || brandOfLink(brand) : null;
  if (brandName) {
    add(unwrapBrand(brandName));
    return names;
  }
  // 2008–2014 layouts: contributor links right after the title heading, in its `.buying` block, or in the
  // sub-title line of its bucket (film: actors and directors as `field-keywords` searches).
  const title = query(doc, ['#btAsinTitle']);
  const buying = closest(title, '.buying');
  if (buying) {
    for (const a of selectAll(buying, 'a[href]')) if (isBylineLink(a.getAttribute('href')!)) add(textOf(a));
    return names;
  }
  const content = closest(title, '.content');
  if (content) for (const a of selectAll(content, '.subTitle a[href*="field-author"], .subTitle a[href*="field-keywords"]')) add(textOf(a));
  return names;
}
