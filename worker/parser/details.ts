/** `details`: label/value pairs of the product-details sections (product-page-contract.md "details"). */
import { isBsrLabel } from './bsr.js';
import type { PageParts } from './page-parts.js';
import { REVIEW_LABELS, containsAny } from './locale.js';
import { query, queryAll } from './query.js';
import { clean, detailKey, textOf } from './text.js';
import { closest, matches, selectAll, selectOne } from './select.js';

/** The product-details containers (the legacy `productDetails` anchor's siblings are kept by `fragments.ts`). */
export const DETAILS_PARTS = {
  ids: [
    'detailBullets_feature_div',
    'detail-bullets',
    'detail_bullets_id',
    'productDetails_detailBullets_sections1',
    'productDetails_db_sections',
    'prodDetails',
    'technicalSpecifications_section_1',
  ],
  idPrefixes: ['productDetails_techSpec_section_'],
} as const satisfies PageParts;

const CONTAINERS = [...DETAILS_PARTS.ids.map((id) => `#${id}`), ...DETAILS_PARTS.idPrefixes.map((p) => `[id^="${p}"]`)];

const BOLD = 'b, strong, .a-text-bold';

function isExcludedLabel(label: string): boolean {
  return isBsrLabel(label) || containsAny(clean(label).toLowerCase(), REVIEW_LABELS);
}

/** True when a value cell holds nothing but images (or nothing). */
function onlyImage(el: Element, text: string): boolean {
  return text === '' || (text === '' && selectOne(el, 'img') !== null);
}

/** Reads one table row as a pair, or null when it is not a pair. */
function rowPair(tr: Element): [string, string] | null {
  const cells = [...tr.children].filter((c) => c.tagName === 'TH' || c.tagName === 'TD');
  if (cells.length !== 2) return null;
  const label = textOf(cells[0]);
  const value = textOf(cells[1]);
  if (!label || onlyImage(cells[1]!, value)) return null;
  return [label, value];
}

/** Reads one bullet item as a pair: its first bold label and the rest of its text. */
function bulletPair(li: Element): [string, string] | null {
  const bold = selectOne(li, BOLD);
  if (!bold) return null;
  const label = textOf(bold);
  if (!label) return null;
  const value = clean(textOf(li, (el) => el === bold).replace(/^[:：]\s*/, ''));
  // A bullet whose "value" is only punctuation is a question or link line ("<b><a>Is the sale of this
  // product unacceptable to you</a></b>?"), not a pair.
  if (!/[\p{L}\p{N}]/u.test(value)) return null;
  return [label, value];
}

/** 2008-era layout: the `.bucket` right after the `productDetails` anchor (`<h2>商品の詳細</h2>`). */
function legacyBucket(doc: Document): Element | null {
  const anchor = query(doc, ['a#productDetails', 'a[name="productDetails"]']);
  for (let el = anchor?.nextElementSibling; el; el = el.nextElementSibling) {
    const content = matches(el, '.bucket') ? selectOne(el, '.content') : selectOne(el, '.bucket .content');
    if (content) return content;
  }
  return null;
}

/** Reads every details pair of the page into `{key: value}` (first value of a key wins). */
export function readDetails(doc: Document): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (pair: [string, string] | null): void => {
    if (!pair) return;
    const [label, value] = pair;
    if (isExcludedLabel(label)) return;
    const key = detailKey(label);
    if (!key || Object.hasOwn(out, key)) return;
    out[key] = value;
  };
  const containers = queryAll(doc, CONTAINERS);
  if (containers.length === 0) {
    const legacy = legacyBucket(doc);
    if (legacy) containers.push(legacy);
  }
  const top = containers.filter((c) => !containers.some((o) => o !== c && o.contains(c)));
  for (const c of top) {
    for (const el of selectAll(c, 'tr, li')) {
      if (el.tagName === 'TR') {
        if (closest(el.parentElement, 'tr')) continue;
        add(rowPair(el));
      } else {
        if (closest(el.parentElement, 'li') && c.contains(closest(el.parentElement, 'li'))) continue;
        add(bulletPair(el));
      }
    }
  }
  return out;
}
