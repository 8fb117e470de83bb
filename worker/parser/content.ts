/**
 * The content fields: `feature_bullets`, `description` and `categories` (product-page-contract.md
 * "Version 2 fields").
 */
import type { PageParts } from './page-parts.js';
import { ABOUT_THIS_ITEM, containsAny } from './locale.js';
import { query, queryAll } from './query.js';
import { clean, textOf } from './text.js';
import { closest, matches, selectAll, selectOne } from './select.js';

/** The bullets, the description blocks and the breadcrumb. */
export const CONTENT_PARTS: PageParts = {
  ids: [
    'feature-bullets', 'feature-bullets-btf', 'kindle-feature-bullets-atf', 'mas-product-feature', 'mas-product-description', 'productFactsDesktopExpander', 'productDescription', 'bookDescription_feature_div', 'postBodyPS',
    'drengr_DesktopTabbedDescriptionOverviewContent_feature_div', 'wayfinding-breadcrumbs_feature_div',
  ],
};

const CONTROL_CLASS = /(?:^|\s)a-expander-(?:prompt|header)(?:\s|$)/;

/**
 * Expander prompts ("Read more", "Leia mais") and other expander controls, and the navigation link to
 * the full editorial reviews ("See all Editorial Reviews"), inside a text block: not part of its text.
 * (Tested on attributes directly: a selector match per element of a long description is slow.)
 */
const notControl = (el: Element): boolean =>
  CONTROL_CLASS.test(el.getAttribute('class') ?? '') ||
  el.getAttribute('data-action') === 'a-expander-toggle' ||
  (el.tagName === 'A' && (el.getAttribute('href') ?? '').includes('/product-description/'));

/** "Make sure this fits" items of the bullets (shown only for a chosen model). */
const FITMENT = '#replacementPartsFitmentBullet, [id^="replacementPartsFitment"]';

/**
 * The "About this item" bullets, each as text, in page order, duplicates kept: `#feature-bullets li`
 * (including those folded behind "Show more"), else the lists right under an "About this item" heading
 * of the product-facts block, else the older pages' equivalents: the "Product Features" bucket below
 * the fold (`#feature-bullets-btf`), the Kindle device bullets (`#kindle-feature-bullets-atf`) and an
 * app's "Product features" (`#mas-product-feature`).
 */
export function readFeatureBullets(doc: Document): string[] {
  const box = query(doc, ['#feature-bullets']);
  let items: Element[] = [];
  if (box) {
    items = [...selectAll(box, 'li')].filter((li) => !matches(li, FITMENT) && !closest(li, FITMENT));
  } else {
    const facts = query(doc, ['#productFactsDesktopExpander']);
    const heading = facts ? [...selectAll(facts, '.product-facts-title, h3')].find((h) => containsAny(textOf(h).toLowerCase(), ABOUT_THIS_ITEM)) : undefined;
    // The heading's list may come split in several lists, one after the other.
    for (let list = heading?.nextElementSibling; list && list.tagName === 'UL'; list = list.nextElementSibling) items.push(...selectAll(list, ':scope > li'));
    if (!heading) {
      const older = query(doc, ['#feature-bullets-btf']) ?? query(doc, ['#kindle-feature-bullets-atf']) ?? query(doc, ['#mas-product-feature']);
      if (older) items = [...selectAll(older, 'li')];
    }
  }
  return items.filter((li) => !closest(li.parentElement, 'li')).map((li) => textOf(li, notControl)).filter((t) => t !== '');
}

/** Text of a block whose markup is in a `<noscript>` (older book descriptions), else of the block itself. */
function blockText(el: Element): string {
  const ns = selectOne(el, 'noscript');
  if (ns) {
    const inner = clean([...ns.childNodes].map((c) => (c.nodeType === 3 ? (c.nodeValue ?? '') : textOf(c, notControl))).join(' '));
    if (inner) return inner;
  }
  return textOf(el, notControl);
}

/**
 * The product description: books' `#bookDescription_feature_div` (or the tabbed "Book Description"
 * overview, or the 2010-14 "Book Description" box's body `#postBodyPS`, without its heading, release
 * date line and Show more/less links), else `#productDescription` whole with its inner headings, else
 * an app's "Product description" body (without its heading);
 * without A+ content; null when absent or empty.
 */
export function readDescription(doc: Document): string | null {
  for (const sel of ['#bookDescription_feature_div', '#drengr_DesktopTabbedDescriptionOverviewContent_feature_div', '#postBodyPS', '#productDescription', '#mas-product-description .masrw-content-row']) {
    for (const el of queryAll(doc, [sel])) {
      const t = blockText(el);
      if (t) return t;
    }
  }
  return null;
}

/** The breadcrumb as a list of names, root first (the "Back to results" link is not one). */
export function readCategories(doc: Document): string[] {
  const box = query(doc, ['#wayfinding-breadcrumbs_feature_div']);
  if (!box) return [];
  return [...selectAll(box, 'li a')]
    .filter((a) => a.id !== 'breadcrumb-back-link' && !closest(a, '.a-breadcrumb-divider'))
    .map((a) => textOf(a))
    .filter((t) => t !== '');
}
