/** `images`: the gallery of the selected variant (product-page-contract.md "Version 2 fields", `images`). */
import { absolute } from './image.js';
import { jsLiteralAt, jsonAt, matchesAfter } from './raw-json.js';

/**
 * What follows `colorImages` up to the `initial` array in the image block script, in each way pages
 * write it: `'colorImages': { 'initial': [`, `colorImages = {"initial":[` (2010-14),
 * `colorImages: { initial: [` (2015-19).
 */
const COLOR_IMAGES_REST = /['"]?\s*[:=]\s*\{\s*(?:['"]initial['"]|initial)\s*:\s*/y;

/** One entry of `colorImages.initial`. */
interface GalleryEntry {
  hiRes?: unknown;
  large?: unknown;
}

/**
 * The gallery images, main first, each the largest version (`hiRes`, else `large`), absolute https,
 * each once. Read from the raw page (the gallery data is a script); a page without gallery data shows
 * its main image alone.
 * @param raw the decoded page
 * @param mainImage the page's main image (`readImage`), used when the page has no gallery data
 * @returns the URLs, or null when the page has gallery data that cannot be read (never a guess)
 */
export function readGallery(raw: string, mainImage: string | null): string[] | null {
  const start = matchesAfter(raw, 'colorImages', COLOR_IMAGES_REST).next();
  if (start.done) return mainImage ? [mainImage] : [];
  let entries: unknown;
  try {
    entries = JSON.parse(jsonAt(raw, start.value) ?? '');
  } catch {
    // Not JSON: a JavaScript literal (bare keys, single quotes), read as one when it is only a literal.
    const literal = jsLiteralAt(raw, start.value);
    if (!literal) return null;
    try {
      entries = JSON.parse(literal);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(entries)) return null;
  const out: string[] = [];
  for (const e of entries as GalleryEntry[]) {
    if (!e || typeof e !== 'object') continue;
    const url = absolute(typeof e.hiRes === 'string' ? e.hiRes : null) ?? absolute(typeof e.large === 'string' ? e.large : null);
    if (url && !out.includes(url)) out.push(url);
  }
  if (out.length === 0 && mainImage) out.push(mainImage);
  return out;
}
