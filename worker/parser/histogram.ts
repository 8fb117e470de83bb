/** `rating_histogram`: percent of ratings per star count (product-page-contract.md "Version 2 fields"). */
import type { RatingHistogram } from '../../core/product.js';
import type { PageParts } from './page-parts.js';
import { queryAll } from './query.js';
import { textOf } from './text.js';
import { closest, selectAll, selectOne } from './select.js';

/** Id prefix of the 2010-14 ratings summary (`#revHist-dpReviewsSummaryWithQuotes-<ASIN>`). */
const LEGACY_PREFIX = 'revHist-dpReviewsSummary';

/**
 * The ratings histogram of the product's own reviews section: its table rows, and in the list layout
 * each row's meter (kept with the start tags of its row, link and labelled span, which carry the star
 * and the percentage; the row's hidden column texts are not needed).
 */
export const HISTOGRAM_PARTS: PageParts = {
  scoped: { within: ['histogramTable'], classes: ['a-histogram-row', 'a-meter'] },
  // The 2010-14 summary beside the reviews (`#revHist-dpReviewsSummaryWithQuotes-<ASIN>`): small, kept whole.
  idPrefixes: [LEGACY_PREFIX],
};

const STAR_WORDS: Record<string, 1 | 2 | 3 | 4 | 5> = { one: 1, two: 2, three: 3, four: 4, five: 5 };
/** A whole-number percentage (`64%`, `64 percent`); never the tail of a decimal (`65.75%` is not 75). */
const PERCENT = /(?<![\d.,])(\d{1,3})\s*(?:%|percent\b)/;

/** Words of "percent" in a row's accessible label (`88 percent of reviews have 5 stars`), lower-case. */
const PERCENT_WORDS = /%|percent|por ciento|por cento|prozent|pour cent|per cento|パーセント/;

/** Star and percentage from a row's accessible label that states both (`0 percent of reviews have 1 stars`). */
function fromAriaLabel(row: Element): { star: number; pct: number } | null {
  for (const el of [row, ...row.getElementsByTagName('*')]) {
    const label = (el.getAttribute('aria-label') ?? '').toLowerCase();
    if (!label) continue;
    if (!PERCENT_WORDS.test(label)) continue;
    const nums = label.match(/\d+/g);
    if (!nums || nums.length !== 2) continue;
    const [pct, star] = nums.map(Number) as [number, number];
    if (star >= 1 && star <= 5 && pct <= 100) return { star, pct };
  }
  return null;
}

/** The star count a histogram row is for: its `filterByStar=` link, else the number its label starts with. */
function starOf(row: Element): number | null {
  for (const a of row.getElementsByTagName('a')) {
    const m = /filterByStar=(one|two|three|four|five)_star/.exec(a.getAttribute('href') ?? '');
    if (m) return STAR_WORDS[m[1]!]!;
  }
  const stated = fromAriaLabel(row);
  if (stated) return stated.star;
  const label = selectOne(row, 'td, a, span') ?? row;
  const m = /^\s*([1-5])(?!\d)/.exec(textOf(label));
  return m ? Number(m[1]) : null;
}

/**
 * The percentage a row shows: the meter's value (`aria-valuenow`, `aria-label="75%"`), else a tooltip or
 * label that states it (`title="70% of reviews have 5 stars"`), else the row's own `N%` text.
 */
function percentOf(row: Element): number | null {
  const meter = selectOne(row, '.a-meter');
  const now = meter?.getAttribute('aria-valuenow');
  if (now && /^\d{1,3}$/.test(now.trim())) return Number(now.trim());
  const aria = PERCENT.exec(meter?.getAttribute('aria-label') ?? '');
  if (aria) return Number(aria[1]);
  for (const el of row.getElementsByTagName('*')) {
    const m = PERCENT.exec(el.getAttribute('title') ?? '') ?? PERCENT.exec(el.getAttribute('aria-label') ?? '');
    if (m) return Number(m[1]);
  }
  const cells = selectAll(row, 'td');
  const last = cells.length ? cells[cells.length - 1]! : null;
  const lastText = last ? textOf(last) : '';
  const m = PERCENT.exec(lastText);
  if (m) return Number(m[1]);
  // Older layouts show counts, with the percentage in a tooltip on every row but an empty one: a count of 0 is 0%.
  return lastText === '0' ? 0 : null;
}

/** Reads one histogram container: all five rows with a star and a percentage, else null. */
function readTable(table: Element): RatingHistogram | null {
  const rows = [...selectAll(table, 'tr.a-histogram-row, li')].filter((r) => !closest(r.parentElement, 'li'));
  const got = new Map<number, number>();
  for (const row of rows) {
    const star = starOf(row);
    const pct = percentOf(row);
    if (star === null || pct === null || pct > 100) continue;
    if (got.has(star) && got.get(star) !== pct) return null;
    got.set(star, pct);
  }
  if (got.size !== 5) return null;
  return { '5': got.get(5)!, '4': got.get(4)!, '3': got.get(3)!, '2': got.get(2)!, '1': got.get(1)! };
}

/**
 * Reads the 2010-14 summary: one `div.histoRow<five…one>` per star, its percentage in the row's tooltip
 * (`title="64% of reviews have 5 stars"`); a row whose tooltip states none ("No 2-star reviews") and
 * whose count is 0 is 0%. All five rows must read, else null.
 */
function readLegacy(box: Element): RatingHistogram | null {
  const got = new Map<number, number>();
  for (const row of box.children) {
    const star = /(?:^|\s)histoRow(one|two|three|four|five)(?:\s|$)/.exec(row.getAttribute('class') ?? '')?.[1];
    if (!star) continue;
    const stated = PERCENT.exec(row.getAttribute('title') ?? '');
    const count = textOf(selectOne(row, '.histoCount'));
    const pct = stated ? Number(stated[1]) : count === '0' ? 0 : null;
    if (pct === null || pct > 100 || got.has(STAR_WORDS[star]!)) return null;
    got.set(STAR_WORDS[star]!, pct);
  }
  if (got.size !== 5) return null;
  return { '5': got.get(5)!, '4': got.get(4)!, '3': got.get(3)!, '2': got.get(2)!, '1': got.get(1)! };
}

/**
 * Reads the ratings histogram: the first `#histogramTable` whose five rows all read; null when none does
 * or when the product has no rating (empty 0% rows are drawn then too).
 * @param rating the product's rating (`readRating`)
 */
export function readHistogram(doc: Document, rating: number | null): RatingHistogram | null {
  if (rating === null) return null;
  for (const table of queryAll(doc, ['#histogramTable'])) {
    const h = readTable(table);
    if (h) return h;
  }
  for (const box of queryAll(doc, [`[id^="${LEGACY_PREFIX}"]`])) {
    const h = readLegacy(box);
    if (h) return h;
  }
  return null;
}
