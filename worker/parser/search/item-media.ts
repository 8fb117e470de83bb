/** A card's `image_url` and `variants_count` (search-page-contract.md "Item fields"). */
import { textIn, type View } from './view.js';

/** Reads the card's `img.s-image` `src` when it is an absolute https URL (a saved copy's local path is not), else null. */
export function readCardImage<E>(v: View<E>, card: E): string | null {
  const img = v.one(card, 'img.s-image');
  const src = img ? (v.attr(img, 'src') ?? '').trim() : '';
  return /^https:\/\/\S+$/.test(src) ? src : null;
}

/** Swatches of a card's colour row. */
const SWATCHES = '.s-color-swatch-outer-circle, .s-color-swatch-pad';
const TAIL = /^\+\s*(\d+)(?:\s|$)/;

/**
 * Reads `variants_count`: the number of a "+N other colors/patterns"-type swatch tail, else the number
 * of swatches shown; null when the card shows neither. Option counts ("Options: 3 sizes") are not it.
 */
export function readCardVariants<E>(v: View<E>, card: E): number | null {
  const row = v.one(card, '.s-color-swatch-container, [data-cy="color-swatches"], .s-variation-options-text');
  const scope = row ?? card;
  for (const el of v.all(scope, 'a, span, u')) {
    const m = TAIL.exec(textIn(v, el));
    if (m) return Number(m[1]);
  }
  if (!row) return null;
  const n = v.all(row, SWATCHES).length;
  return n > 0 ? n : null;
}
