/** `variant` and `variants`: twister selections and format swatches (product-page-contract.md "variant"). */
import type { Variant } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { query, queryAll } from './query.js';
import { clean, textOf } from './text.js';

/**
 * Twister rows and format swatches. `#variation_<dimension>` rows are read inside; the inline twister's
 * rows only for their presence and order (their selection is `#inline-twister-expanded-dimension-text-*`).
 */
export const VARIANT_PARTS: PageParts = {
  ids: ['tmmSwatches', 'mediaTabs_tabSet'],
  classes: ['twisterMediaMatrix'],
  idPrefixes: ['variation_', 'inline-twister-expanded-dimension-text-'],
  shellIdPrefixes: ['inline-twister-row-', 'inline-twister-singleton-header-'],
};

/** Twister variation data read from the raw page (no DOM): dimension keys, values per child ASIN. */
export interface TwisterData {
  dimensions: string[];
  valuesByAsin: Map<string, string[]>;
  selected: Record<string, string>;
  currentAsin: string | null;
}

/** Reads the JSON value (object or array) that starts at `start` in `s`, balancing brackets and strings. */
function jsonAt(s: string, start: number): string | null {
  const open = s[start];
  if (open !== '{' && open !== '[') return null;
  let depth = 0;
  let inStr = false;
  for (let i = start; i < s.length && i < start + 2_000_000; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return s.slice(start, i + 1);
    }
  }
  return null;
}

/** Every JSON value that follows `"key" :` in the raw page, in page order. */
function jsonValues(raw: string, key: string): unknown[] {
  const out: unknown[] = [];
  const re = new RegExp(`"${key}"\\s*:\\s*`, 'g');
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    const start = m.index + m[0].length;
    const c = raw[start];
    if (c === '"') {
      const end = raw.indexOf('"', start + 1);
      out.push(raw.slice(start + 1, end));
      continue;
    }
    const txt = jsonAt(raw, start);
    if (!txt) continue;
    try {
      out.push(JSON.parse(txt));
    } catch {
      /* not JSON */
    }
  }
  return out;
}

const isAsin = (s: string): boolean => /^[A-Z0-9]{10}$/.test(s);

/** Extracts twister variation data from the raw HTML string; null when the page has none. */
export function readTwisterData(raw: string): TwisterData | null {
  const display = jsonValues(raw, 'dimensionValuesDisplayData').find(
    (v): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0,
  );
  if (!display) return null;
  const valuesByAsin = new Map<string, string[]>();
  for (const [asin, vals] of Object.entries(display)) {
    if (!isAsin(asin) || !Array.isArray(vals)) continue;
    valuesByAsin.set(asin, vals.map((v) => clean(String(v))));
  }
  if (valuesByAsin.size === 0) return null;
  const dimensions =
    (jsonValues(raw, 'dimensions').find(
      (v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'),
    ) as string[] | undefined) ?? [];
  const selected =
    (jsonValues(raw, 'selected_variations').find(
      (v) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0,
    ) as Record<string, string> | undefined) ?? {};
  const current = jsonValues(raw, 'currentAsin').find((v): v is string => typeof v === 'string' && isAsin(v)) ?? null;
  return { dimensions, valuesByAsin, selected, currentAsin: current };
}

const rowSelectors = (d: string): string[] => [`#variation_${d}`, `#inline-twister-row-${d}`, `#inline-twister-singleton-header-${d}`];

/** Page order of the dimensions: the order their selector rows appear in the page. */
function pageOrder(doc: Document, dims: string[]): number[] {
  const idx = dims.map((d, i) => ({ i, el: query(doc, rowSelectors(d)) }));
  const withEl = idx.filter((x) => x.el);
  withEl.sort((a, b) => (a.el!.compareDocumentPosition(b.el!) & 4 ? -1 : 1));
  const rest = idx.filter((x) => !x.el);
  return [...withEl, ...rest].map((x) => x.i);
}

/**
 * The value the page shows as selected for one dimension: `undefined` when the page has no row for it,
 * null when the row shows no selection (a prompt such as "Select Size" is not one of the dimension's values).
 */
function domSelection(doc: Document, dim: string, allowed: Set<string>): string | null | undefined {
  if (!query(doc, rowSelectors(dim))) return undefined;
  const candidates = queryAll(doc, [
    `#variation_${dim} .selection`,
    `#inline-twister-expanded-dimension-text-${dim}`,
    `#variation_${dim} select option[selected]`,
  ]);
  for (const el of candidates) {
    const t = textOf(el);
    if (t && allowed.has(t)) return t;
  }
  return null;
}

/** Reads the twister's selected label and all children. */
export function readTwister(doc: Document, data: TwisterData): { variant: string | null; variants: Variant[] } {
  const dims = data.dimensions;
  const order = pageOrder(doc, dims);
  const aligned = (vals: string[]): boolean => dims.length === vals.length;
  const name = (vals: string[]): string => (aligned(vals) ? order.map((i) => vals[i]!) : vals).filter(Boolean).join(' / ');
  const variants: Variant[] = [];
  for (const [asin, vals] of data.valuesByAsin) variants.push({ name: name(vals), asin });
  const allowed = dims.map((_, i) => new Set([...data.valuesByAsin.values()].map((v) => v[i] ?? '')));
  const cur = data.currentAsin ? data.valuesByAsin.get(data.currentAsin) : undefined;
  const jsonValue = (i: number): string | null =>
    (cur && aligned(cur) ? cur[i] : undefined) ?? data.selected[dims[i]!] ?? null;
  const parts: string[] = [];
  const anyRow = dims.some((d) => query(doc, rowSelectors(d)));
  if (!anyRow && cur && !aligned(cur)) return { variant: name(cur) || null, variants };
  for (const i of order) {
    const dom = anyRow ? domSelection(doc, dims[i]!, allowed[i]!) : undefined;
    const v = dom === undefined ? jsonValue(i) : dom;
    if (v) parts.push(v);
  }
  return { variant: parts.length ? parts.join(' / ') : null, variants };
}

const ASIN_IN_HREF = /\/(?:dp|gp\/product|product)\/([A-Z0-9]{10})(?:[/?#]|$)/;

/**
 * The format buttons of one swatch: every button, or, when the swatch holds several (music: a
 * "Streaming / Unlimited" button beside the "MP3 / $9.49" one, both linking to the MP3 album), the
 * buttons that show a price of their own: a streaming subscription is no format with an ASIN of its own.
 */
function formatButtons(swatch: Element): { btn: Element; title: Element }[] {
  const btns = [...swatch.querySelectorAll('.a-button-text')];
  if (btns.length === 0) {
    const a = swatch.querySelector('a');
    if (a) btns.push(a);
  }
  const out = btns.map((btn) => ({
    btn,
    title: btn.querySelector('.slot-title') ?? swatch.querySelector('.slot-title, .mediaTab_title') ?? btn.querySelector('span') ?? btn,
  }));
  if (out.length < 2) return out;
  const priced = out.filter(({ btn, title }) => /\d/.test(textOf(btn, (el) => el === title)));
  return priced.length ? priced : out.slice(0, 1);
}

/** Reads format swatches (books, music, film): the selected format's name and each format's ASIN. */
export function readFormatSwatches(doc: Document, pageAsin: string | null): { variant: string | null; variants: Variant[] } {
  const variants: Variant[] = [];
  let variant: string | null = null;
  const all = queryAll(doc, ['#tmmSwatches .swatchElement', '#mediaTabs_tabSet li.mediaTab_heading']);
  const items = all.filter((el) => !all.some((o) => o !== el && o.contains(el)) && !el.matches('.olpLink, .otherSellers'));
  if (items.length === 0) return readMediaMatrix(doc, pageAsin);
  for (const li of items) {
    for (const { btn, title } of formatButtons(li)) {
      const nameText = clean(textOf(title).replace(/\s*[-–]?\s*$/, ''));
      if (!nameText) continue;
      const selected = li.matches('.selected, .a-active') || !!li.querySelector('.a-button-selected');
      if (selected && !variant) variant = nameText;
      const m = ASIN_IN_HREF.exec(btn.getAttribute('href') ?? '');
      const asin = m ? m[1]! : selected ? pageAsin : null;
      if (asin && !variants.some((v) => v.asin === asin)) variants.push({ name: nameText, asin });
    }
  }
  return { variant, variants };
}

/**
 * Reads the media matrix of 2010s film pages (`table.twisterMediaMatrix`, "Other Formats & Versions"):
 * one row per format (`tr#tmm_<ASIN>` with its format cell `td.tmm_videoMetaBinding`: "Blu-ray", "DVD",
 * "Multi-Format"), the ASIN its link points to, the selected one the `activeRow` (the page's own ASIN).
 * Rows without a format cell (instant-video titles) name no format and are left out.
 */
function readMediaMatrix(doc: Document, pageAsin: string | null): { variant: string | null; variants: Variant[] } {
  const variants: Variant[] = [];
  let variant: string | null = null;
  for (const row of doc.querySelectorAll('table.twisterMediaMatrix tr[id^="tmm_"]')) {
    const name = textOf(row.querySelector('td.tmm_videoMetaBinding'));
    if (!name) continue;
    const selected = row.matches('.activeRow');
    if (selected && !variant) variant = name;
    let asin: string | null = null;
    for (const a of row.querySelectorAll('a[href]')) asin ??= ASIN_IN_HREF.exec(a.getAttribute('href') ?? '')?.[1] ?? null;
    if (!asin && selected) asin = pageAsin;
    if (asin && !variants.some((v) => v.asin === asin)) variants.push({ name, asin });
  }
  return { variant, variants };
}
