/** `total_results` and `results_text`: the result-count line (search-page-contract.md "SearchResults"). */
import { parseGroupedInt } from '../text.js';
import { COUNT_WORDS, NO_RESULTS_PHRASES } from './words.js';
import { textIn, type View } from './view.js';

/** The result-count line: 2014–2018 `#s-result-count`, 2019+ the info bar's `.s-breadcrumb`. */
export const RESULT_COUNT = '#s-result-count, .s-breadcrumb';

/** Controls that share the breadcrumb cell (the "Filters" button of 2026 layouts) and hidden copies (the 2014–2018 breadcrumb's no-script copy and its keyword editor). */
const NOT_COUNT = 'button, .s-breadcrumb-all-filters-button, .a-button, form, select, script, style, .s-hidden, .aok-hidden, #bcEdit';

/** The result-count line as shown, or null. */
export function readResultsText<E>(v: View<E>, el: E | null): string | null {
  if (!el) return null;
  const t = textIn(v, el, (e) => v.is(e, NOT_COUNT));
  return t || null;
}

/** True when the line says the keyword matched nothing ("No results for …"). */
export function isNoResultsText(text: string | null): boolean {
  const t = (text ?? '').toLowerCase();
  return NO_RESULTS_PHRASES.some((p) => t.includes(p));
}

/**
 * The integer lower bound the line states: the number after the shown range ("1-48 of over 10,000
 * results" -> 10000, "1-16 of 243" -> 243), else its first number ("検索結果 20,000以上", "1 result
 * for"), else a count word ("one result for" -> 1); null when the line states none.
 */
export function parseTotalResults(text: string | null): number | null {
  if (!text) return null;
  const range = /^\D*?\d[\d.,\s]*?\s*[-–]\s*\d[\d.,]*/.exec(text);
  const rest = range ? text.slice(range.index + range[0].length) : text;
  const before = rest.split(/["“„«「]/)[0]!;
  if (/\d/.test(before)) return parseGroupedInt(before);
  const word = /^\s*(\p{L}+)\s/u.exec(text)?.[1]?.toLowerCase();
  return word !== undefined && Object.hasOwn(COUNT_WORDS, word) ? COUNT_WORDS[word]! : null;
}
