/** A card's `image_url` and `variants_count` (search-page-contract.md "Item fields"). */
import { textIn, type View } from './view.js';

/**
 * The card's image: `img.s-image` (2019+), and the same element of the older layouts
 * (`img.s-access-image` 2016–2018, `img.productImage` 2014). The "no image" placeholder
 * (`img.placeholder`) is not the card's image.
 */
export const CARD_IMAGE = 'img.s-image, img.s-access-image, img.productImage';

/**
 * Reads the card image's `src` as an absolute https URL: an `http://` src is written `https://`
 * (RULINGS.md image_url); a saved copy's local path ("amazon2_files/…") is not a URL -> null.
 */
export function readCardImage<E>(v: View<E>, card: E): string | null {
  const img = v.one(card, CARD_IMAGE);
  const src = img ? (v.attr(img, 'src') ?? '').trim() : '';
  const url = src.replace(/^http:\/\//i, 'https://');
  return /^https:\/\/\S+$/.test(url) ? url : null;
}

/** Swatches of a card's colour row (2019+ circles; 2017–2018 colour twister thumbnails). */
const SWATCHES = '.s-color-swatch-outer-circle, .s-color-swatch-pad, li.s-color-twister-list-item';
/** A swatch tail: "+41", "+ 2 andere Farben/Muster", "Mais 3 cores/estampas" (pt); group 1: N. */
const TAIL = /^(?:\+|mais\s)\s*(\d+)(?:\s|$)/i;

/** The colour row of a card: the swatch container (2019+), else the list holding 2017–2018 twister thumbnails. */
function colourRow<E>(v: View<E>, card: E): E | null {
  const row = v.one(card, '.s-color-swatch-container, [data-cy="color-swatches"]');
  if (row) return row;
  const twister = v.one(card, 'li.s-color-twister-list-item');
  return twister ? v.parent(twister) : null;
}

/**
 * Reads `variants_count`: the number of a "+N other colors/patterns"-type swatch tail in the colour
 * row, else the number of swatches shown; null when the card shows neither. An "Options: 3 sizes" row
 * is read only for a "+N" tail (its option counts are not it).
 */
export function readCardVariants<E>(v: View<E>, card: E): number | null {
  const row = colourRow(v, card) ?? v.one(card, '.s-variation-options-text');
  if (!row) return null;
  for (const el of v.all(row, 'a, span, u')) {
    const m = TAIL.exec(textIn(v, el));
    if (m) return Number(m[1]);
  }
  const n = v.all(row, SWATCHES).length;
  return n > 0 ? n : null;
}
