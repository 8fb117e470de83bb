/** `variant` and `variants`: twister selections and format swatches (product-page-contract.md "variant"). */
import type { Variant } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { query, queryAll } from './query.js';
import { firstJsonValue } from './raw-json.js';
import { clean, textOf } from './text.js';
import { matches, selectAll, selectOne } from './select.js';

/**
 * Twister rows and format swatches. `#variation_<dimension>` rows are read inside; the inline twister's
 * rows only for their presence and order (their selection is `#inline-twister-expanded-dimension-text-*`);
 * a dropdown dimension's button `#dropdown_selected_<dimension>` for its prompt (the selected value).
 */
export const VARIANT_PARTS: PageParts = {
  ids: ['tmmSwatches', 'mediaTabs_tabSet'],
  classes: ['twisterMediaMatrix'],
  idPrefixes: ['variation_', 'inline-twister-expanded-dimension-text-', 'dropdown_selected_'],
  shellIdPrefixes: ['inline-twister-row-', 'inline-twister-singleton-header-'],
};

/** Twister variation data read from the raw page (no DOM): dimension keys, values per child ASIN. */
export interface TwisterData {
  dimensions: string[];
  valuesByAsin: Map<string, string[]>;
  selected: Record<string, string>;
  currentAsin: string | null;
}

const isAsin = (s: string): boolean => /^[A-Z0-9]{10}$/.test(s);
const isNonEmptyObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;

/** Extracts twister variation data from the raw HTML string; null when the page has none. */
export function readTwisterData(raw: string): TwisterData | null {
  const display = firstJsonValue(raw, 'dimensionValuesDisplayData', isNonEmptyObject);
  if (!display) return null;
  const valuesByAsin = new Map<string, string[]>();
  for (const [asin, vals] of Object.entries(display)) {
    if (!isAsin(asin) || !Array.isArray(vals)) continue;
    valuesByAsin.set(asin, vals.map((v) => clean(String(v))));
  }
  if (valuesByAsin.size === 0) return null;
  const dimensions =
    firstJsonValue(raw, 'dimensions', (v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) ?? [];
  const selected = (firstJsonValue(raw, 'selected_variations', isNonEmptyObject) as Record<string, string> | undefined) ?? {};
  const current = firstJsonValue(raw, 'currentAsin', (v): v is string => typeof v === 'string' && isAsin(v)) ?? null;
  return { dimensions, valuesByAsin, selected, currentAsin: current };
}

/** A dimension's selector row; a dropdown dimension's button (`#dropdown_selected_<dim>`) stands for its row where that has no id of its own. */
const rowSelectors = (d: string): string[] => [`#variation_${d}`, `#inline-twister-row-${d}`, `#inline-twister-singleton-header-${d}`, `#dropdown_selected_${d}`];

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
    `#dropdown_selected_${dim} .a-dropdown-prompt`,
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

/** The ASIN a swatch stands for: its link's, else its own `data-asin` / `data-defaultasin`. */
function swatchAsin(li: Element, link: Element | null): string | null {
  const m = ASIN_IN_HREF.exec(link?.getAttribute('href') ?? '');
  if (m) return m[1]!;
  for (const el of [li, ...selectAll(li, '[data-asin], [data-defaultasin]')]) {
    const v = (el.getAttribute('data-asin') ?? el.getAttribute('data-defaultasin') ?? '').trim().toUpperCase();
    if (/^[A-Z0-9]{10}$/.test(v)) return v;
  }
  return null;
}

/** A swatch's format name: its title slot, else its first span's text, else the first leaf text that is not a price (icons are not names). */
function swatchName(li: Element, btn: Element): string {
  const slot = selectOne(btn, '.slot-title') ?? selectOne(li, '.slot-title, .mediaTab_title');
  if (slot) return textOf(slot);
  const first = selectOne(btn, 'span');
  const firstText = first ? textOf(first) : '';
  if (firstText) return firstText;
  // The first span is an icon (or empty): the first leaf text that is not a price.
  for (const span of selectAll(btn, 'span')) {
    if (selectOne(span, 'span') || matches(span, '.a-color-price, .a-color-secondary, .a-color-base, .a-offscreen')) continue;
    const t = textOf(span);
    if (t) return t;
  }
  return textOf(btn, (el) => matches(el, '.a-color-price, .a-color-secondary, .a-color-base, .a-offscreen'));
}

/**
 * The format buttons of one swatch with their names: every button, or, when the swatch holds several
 * (music: a "Streaming / Unlimited" button beside the "MP3 / $9.49" one, both linking to the MP3
 * album), those that show a price of their own: a streaming subscription is no format with an ASIN of
 * its own, the format is "MP3".
 */
function formatButtons(li: Element): { btn: Element; name: string }[] {
  const btns = [...selectAll(li, '.a-button-text')];
  if (btns.length === 0) {
    const a = selectOne(li, 'a');
    if (a) btns.push(a);
  }
  const out = btns.map((btn) => ({ btn, name: clean(swatchName(li, btn).replace(/\s*[-–]?\s*$/, '')) }));
  if (out.length < 2) return out;
  const priced = out.filter(({ btn, name }) => /\d/.test(textOf(btn).replace(name, '')));
  return priced.length ? priced : out.slice(0, 1);
}

/** Reads format swatches (books, music, film): the selected format's name and each format's ASIN. */
export function readFormatSwatches(doc: Document, pageAsin: string | null): { variant: string | null; variants: Variant[] } {
  const variants: Variant[] = [];
  let variant: string | null = null;
  const all = queryAll(doc, ['#tmmSwatches .swatchElement', '#mediaTabs_tabSet li.mediaTab_heading']);
  const items = all.filter((el) => !all.some((o) => o !== el && o.contains(el)) && !matches(el, '.olpLink, .otherSellers'));
  for (const li of items) {
    const selected = matches(li, '.selected, .a-active') || !!selectOne(li, '.a-button-selected');
    for (const { btn, name } of formatButtons(li)) {
      if (!name) continue;
      if (selected && !variant) variant = name;
      const asin = swatchAsin(li, btn) ?? (selected ? pageAsin : null);
      if (asin && !variants.some((v) => v.asin === asin)) variants.push({ name, asin });
    }
  }
  if (items.length === 0) return readMediaMatrix(doc, pageAsin);
  return { variant, variants };
}

/**
 * The 2010s media matrix (`table.twisterMediaMatrix`, "Other Formats & Versions"): one row per format
 * (`tr[id^="tmm_"]` with its format cell `.tmm_videoMetaBinding`, books `.tmm_bookTitle`), the active row the selected one; a
 * row's ASIN is its link's (the active row's is the page's). Instant-video rows carry no format cell.
 */
function readMediaMatrix(doc: Document, pageAsin: string | null): { variant: string | null; variants: Variant[] } {
  const variants: Variant[] = [];
  let variant: string | null = null;
  const rows = [...selectAll(doc, 'table.twisterMediaMatrix tr[id^="tmm_"]')];
  // Film matrices name the format in `.tmm_videoMetaBinding` (their title cell holds the film's name);
  // book matrices have no such cell and name the format in the title cell (`.tmm_bookTitle`).
  const formatCell = rows.some((r) => selectOne(r, '.tmm_videoMetaBinding')) ? '.tmm_videoMetaBinding' : '.tmm_bookTitle';
  for (const row of rows) {
    const cell = selectOne(row, formatCell);
    const name = cell ? textOf(cell) : '';
    if (!name) continue;
    const selected = matches(row, '.activeRow');
    if (selected && !variant) variant = name;
    const link = [...selectAll(row, 'a[href]')].find((a) => ASIN_IN_HREF.test(a.getAttribute('href') ?? '')) ?? null;
    const asin = link ? ASIN_IN_HREF.exec(link.getAttribute('href')!)![1]! : selected ? pageAsin : null;
    if (asin && !variants.some((v) => v.asin === asin)) variants.push({ name, asin });
  }
  return { variant, variants };
}
