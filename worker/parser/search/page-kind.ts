/**
 * The kind of a search page without result cards (search-page-contract.md "Page kinds"): a robot
 * check, an error page, a "No results for …" page, or a page without a result grid (degraded).
 */
import { CAPTCHA_PHRASES, ERROR_PHRASES, containsAny } from '../locale.js';
import { textOf } from '../text.js';
import { selectAll, selectOne } from '../select.js';
import { NO_RESULTS_PHRASES } from './words.js';

/** What a page without result cards is. */
export type NoCardsKind = { kind: 'no_results' } | { kind: 'robot_check' | 'error_page' | 'degraded'; reason: string };

/** Decides the kind of a page that holds no result card, from a document of the whole page. */
export function decideNoCardsKind(doc: Document): NoCardsKind {
  if (selectOne(doc, 'form[action*="validateCaptcha"], #captchacharacters')) return { kind: 'robot_check', reason: 'captcha form' };
  const alts = selectAll(doc, 'img[alt]').map((i) => i.getAttribute('alt') ?? '').join(' ');
  const body = `${doc.title ?? ''} ${textOf(doc.body)} ${alts}`.toLowerCase();
  // A robot check never says "No results for"; an interstitial's "continue shopping" may sit on any page.
  if (containsAny(body, NO_RESULTS_PHRASES)) return { kind: 'no_results' };
  if (containsAny(body, CAPTCHA_PHRASES)) return { kind: 'robot_check', reason: 'robot check text' };
  if (containsAny(body, ERROR_PHRASES)) return { kind: 'error_page', reason: 'something went wrong page' };
  return { kind: 'degraded', reason: 'no result grid' };
}
