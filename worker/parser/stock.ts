/**
 * `availability` and `delivery`: the featured offer's stock line and where and when it is delivered
 * (product-page-contract.md "Version 2 fields").
 */
import type { Availability, AvailabilityStatus, Delivery } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import {
  AVAILABILITY_PHRASES, DELIVER_TO_PREFIXES, DELIVER_TO_SUFFIXES, IN_STOCK_WHOLE_LINES, LOW_STOCK_PATTERNS, NO_PLACE_PHRASES, TRAILING_LINK_TEXTS, containsAny,
} from './locale.js';
import { LEGACY_STOCK, featured, otherOffer } from './offer.js';
import { queryAll } from './query.js';
import { clean, textOf } from './text.js';
import { selectAll, selectOne } from './select.js';

/** The stock line, the deliver-to lines and the delivery messages (newer block and the older ones). */
export const STOCK_PARTS: PageParts = {
  ids: [
    'availability', 'contextualIngressPtLabel_deliveryShortLine', 'glow-ingress-line1', 'glow-ingress-line2', 'mir-layout-DELIVERY_BLOCK',
    'ddmDeliveryMessage', 'delivery-message', 'fast-track-message', 'ftMessage', 'mas-availability',
  ],
  // The older buy box's address picker ("Ship to: kirkland, 98033").
  classes: ['lux-location-label'],
};

/** Classifies an availability text (lower-cased) and reads the quantity of a low-stock line. */
export function availabilityStatus(text: string): { status: AvailabilityStatus; quantity: number | null } {
  const t = text.toLowerCase();
  if (containsAny(t, AVAILABILITY_PHRASES.back_order)) return { status: 'back_order', quantity: null };
  if (containsAny(t, AVAILABILITY_PHRASES.preorder)) return { status: 'preorder', quantity: null };
  if (containsAny(t, AVAILABILITY_PHRASES.out_of_stock)) return { status: 'out_of_stock', quantity: null };
  for (const re of LOW_STOCK_PATTERNS) {
    const m = re.exec(t);
    if (m) {
      const n = Number(m[1]);
      return Number.isSafeInteger(n) && n > 0 ? { status: 'low_stock', quantity: n } : { status: 'unknown', quantity: null };
    }
  }
  if (containsAny(t, AVAILABILITY_PHRASES.in_stock)) return { status: 'in_stock', quantity: null };
  if (IN_STOCK_WHOLE_LINES.includes(t.trim().replace(/[\s.。!]+$/u, ''))) return { status: 'in_stock', quantity: null };
  return { status: 'unknown', quantity: null };
}

/**
 * The featured offer's `#availability` line (the first one outside other offers' rows; older layouts:
 * the stock span of the `.buying` block, without the help link after it; an app's `#mas-availability`);
 * null when the page shows none
 * or the featured offer's line is empty.
 */
export function readAvailability(doc: Document): Availability | null {
  const el =
    featured(queryAll(doc, ['#availability'])) ??
    featured(queryAll(doc, ['.buying']).flatMap((b) => [...selectAll(b, LEGACY_STOCK)])) ??
    featured(queryAll(doc, ['#mas-availability']));
  const text = el ? textOf(el) : '';
  if (!text) return null;
  return { text, ...availabilityStatus(text) };
}

const LINKS_LONGEST_FIRST = [...TRAILING_LINK_TEXTS].sort((a, b) => b.length - a.length);

/** Removes a trailing link text ("Details", "Update location") and the separator or punctuation before it. */
export function withoutTrailingLink(text: string): string {
  // A link text may carry its own full stop ("Siehe Details.").
  const bare = text.replace(/[\s.]+$/, '');
  const lower = bare.toLowerCase();
  for (const link of LINKS_LONGEST_FIRST) {
    if (lower.endsWith(link) && lower.length > link.length && !/[\p{L}\p{N}]/u.test(lower[lower.length - link.length - 1]!)) {
      return clean(bare.slice(0, bare.length - link.length).replace(/[\s.,;:·|–—-]+$/u, ''));
    }
  }
  return text;
}

/** A place text without its localized deliver-to prefix or suffix, or null when it names no place. */
function placeText(raw: string, needPrefix: boolean): string | null {
  let text = raw;
  const lower = text.toLowerCase();
  const prefix = DELIVER_TO_PREFIXES.find((p) => lower.startsWith(p));
  const suffix = DELIVER_TO_SUFFIXES.find((p) => lower.endsWith(p));
  if (prefix) text = clean(text.slice(prefix.length).replace(/^[:\s]+/, ''));
  else if (suffix) text = clean(text.slice(0, text.length - suffix.length));
  else if (needPrefix) return null;
  text = withoutTrailingLink(text);
  // A prompt to choose an address ends in a colon ("Select a shipping address:"); a place never does.
  if (!text || text.endsWith(':') || containsAny(text.toLowerCase(), NO_PLACE_PHRASES)) return null;
  return text;
}

/**
 * The place of one deliver-to line, or null when it names none.
 * @param needPrefix the line counts only when it starts with a deliver-to prefix (the navigation's first
 *   line greets otherwise: "Hello", "Olá")
 */
function placeOf(el: Element, needPrefix: boolean): string | null {
  const spans = [...el.children].filter((c) => c.tagName === 'SPAN');
  const first = spans[0] ? textOf(spans[0]).toLowerCase() : '';
  if (spans.length >= 2 && DELIVER_TO_PREFIXES.some((p) => first.startsWith(p))) {
    // The prefix span may carry the customer's name ("Deliver to Samir - "): the place is in the spans after it.
    return placeText(clean(spans.slice(1).map((s) => textOf(s)).join(' ')), false);
  }
  return placeText(textOf(el), needPrefix);
}

/** The delivery messages of buy boxes without the MIR block, newest layout first (read in page order). */
const PROMISE_SOURCES = ['#ddmDeliveryMessage', '#delivery-message', '#fast-track-message', '#ftMessage'];

/** The first delivery message of the featured offer, without a trailing link text. */
function readPromise(doc: Document): string | null {
  const block = featured(queryAll(doc, ['#mir-layout-DELIVERY_BLOCK']));
  if (block) {
    const primary = selectOne(block, '[id$="PRIMARY_DELIVERY_MESSAGE_LARGE"]') ?? block.firstElementChild;
    const t = primary ? withoutTrailingLink(textOf(primary)) : '';
    if (t) return t;
  }
  // Older buy boxes nest the message in its container (`#fast-track-message` > `#delivery-message`, then an
  // upsell line): the innermost message is the first one.
  const candidates = queryAll(doc, PROMISE_SOURCES).filter((el) => !otherOffer(el));
  for (const el of candidates) {
    if (candidates.some((c) => c !== el && el.contains(c))) continue;
    const t = withoutTrailingLink(textOf(el));
    if (t) return t;
  }
  return null;
}

/**
 * Where the page delivers to (the buy box's deliver-to line, else the navigation's) and the first
 * delivery message; null when the page shows neither.
 * @param hasOffer whether the page shows a featured offer (its delivery message belongs to it)
 */
export function readDelivery(doc: Document, hasOffer: boolean): Delivery | null {
  let location: string | null = null;
  for (const sel of ['#contextualIngressPtLabel_deliveryShortLine', '.lux-location-label', '#glow-ingress-line2', '#glow-ingress-line1']) {
    for (const el of queryAll(doc, [sel])) if (!otherOffer(el)) location ??= placeOf(el, sel === '#glow-ingress-line1');
  }
  const promise = hasOffer ? readPromise(doc) : null;
  return location === null && promise === null ? null : { location, promise };
}
