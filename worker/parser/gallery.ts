/** `images`: the gallery of the selected variant (product-page-contract.md "Version 2 fields", `images`). */
import { absolute } from './image.js';
import { jsonAt, matchesAfter } from './raw-json.js';

/** What follows `colorImages` in `'colorImages': { 'initial': [...]` of the image block script (quotes of either kind). */
const COLOR_IMAGES_REST = /['"]\s*:\s*\{\s*['"]initial['"]\s*:\s*/y;

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
  const start = matchesAfter(raw, 'colorImages', COLOR_IMAGES_REST, `'"`).next();
  if (start.done) return mainImage ? [mainImage] : [];
  const json = jsonAt(raw, start.value);
  if (!json) return null;
  let entries: unknown;
  try {
    entries = JSON.parse(json);
  } catch {
    return null;
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
