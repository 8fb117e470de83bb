/** `image_url`: the main product image (product-page-contract.md "image_url"). */
import type { PageParts } from './page-parts.js';
import { query } from './query.js';

/** The main image elements, in priority order. */
export const IMAGE_PARTS = {
  ids: ['landingImage', 'imgBlkFront', 'ebooksImgBlkFront', 'main-image', 'prodImage', 'original-main-image'],
} as const satisfies PageParts;
const MAIN = IMAGE_PARTS.ids.map((id) => `#${id}`);

/** Makes an image URL absolute https (`//x` and `http://x` become `https://x`); null for `data:` URIs, relative and empty values. */
export function absolute(url: string | null | undefined): string | null {
  const u = (url ?? '').trim();
  if (!u || u.startsWith('data:')) return null;
  if (u.startsWith('//')) return `https:${u}`;
  if (u.startsWith('http://')) return `https://${u.slice(7)}`;
  return u.startsWith('https://') ? u : null;
}

/** The widest entry of a `data-a-dynamic-image` JSON (`{"url":[w,h],...}`). */
function widest(json: string | null): string | null {
  if (!json) return null;
  try {
    const map = JSON.parse(json) as Record<string, [number, number]>;
    let best: string | null = null;
    let bestW = -1;
    for (const [url, size] of Object.entries(map)) {
      const w = Array.isArray(size) ? Number(size[0]) : 0;
      if (w > bestW && absolute(url)) {
        best = url;
        bestW = w;
      }
    }
    return absolute(best);
  } catch {
    return null;
  }
}

/** Reads the main image URL. */
export function readImage(doc: Document): string | null {
  for (const sel of MAIN) {
    const img = query(doc, [sel]);
    if (!img) continue;
    const url =
      absolute(img.getAttribute('data-old-hires')) ??
      widest(img.getAttribute('data-a-dynamic-image')) ??
      absolute(img.getAttribute('src'));
    if (url) return url;
  }
  return null;
}
