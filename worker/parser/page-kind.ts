/** Page-kind decision, made before any field is read (product-page-contract.md "Page kinds"). */
import type { PageParts } from './page-parts.js';
import { CAPTCHA_PHRASES, ERROR_PHRASES, NOT_FOUND_PHRASES, containsAny } from './locale.js';
import { query } from './query.js';
import { textOf } from './text.js';
import { selectAll, selectOne } from './select.js';

/** What kind of page this is; `product` carries the title element. */
export type PageKind =
  | { kind: 'product'; title: string }
  | { kind: 'not_found' }
  | { kind: 'robot_check' | 'error_page' | 'degraded'; reason: string };

/** The title elements, in priority order (the Appstore's `#mas-title` last). */
export const TITLE_PARTS = { ids: ['productTitle', 'ebooksProductTitle', 'btAsinTitle', 'title', 'mas-title'] } as const satisfies PageParts;
const TITLE_SELECTORS = TITLE_PARTS.ids.map((id) => `#${id}`);

/**
 * The product title (`#productTitle`, older `#ebooksProductTitle`, `#btAsinTitle`, `#title`, the
 * Appstore's `#mas-title`), else the 2010-12 product heading `h1.parseasinTitle` without any of them
 * (device landing pages); null when none. The heading is a class, not a title id: pages that have only
 * it are read whole (`index.ts`).
 */
export function readTitle(doc: Document): string | null {
  for (const sel of [...TITLE_SELECTORS, 'h1.parseasinTitle']) {
    const el = query(doc, [sel]);
    const t = el ? textOf(el) : '';
    if (t) return t;
  }
  return null;
}

/** Decides the page kind from the parsed document. */
export function decidePageKind(doc: Document): PageKind {
  const title = readTitle(doc);
  if (title) return { kind: 'product', title };
  if (selectOne(doc, 'form[action*="validateCaptcha"], #captchacharacters'))
    return { kind: 'robot_check', reason: 'captcha form' };
  const head = (doc.title ?? '').toLowerCase();
  const alts = [...selectAll(doc, 'img[alt]')].map((i) => i.getAttribute('alt') ?? '').join(' ');
  const body = `${head} ${textOf(doc.body)} ${alts}`.toLowerCase();
  if (containsAny(body, CAPTCHA_PHRASES)) return { kind: 'robot_check', reason: 'robot check text' };
  if (containsAny(body, NOT_FOUND_PHRASES)) return { kind: 'not_found' };
  if (containsAny(body, ERROR_PHRASES)) return { kind: 'error_page', reason: 'something went wrong page' };
  return { kind: 'degraded', reason: 'no product title' };
}
