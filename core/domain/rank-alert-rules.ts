/**
 * Where a tracked ASIN stands in the results pages of one keyword monitoring run: the side a rank
 * rule (core/domain/alert-rules.ts `rank_above`, `rank_below`, `rank_change`, `sponsored_change`)
 * judges. Pure.
 *
 * The organic rank counts the non-sponsored items across the pages read, in page order: an ASIN
 * that is 3rd among the organic items of page 2, after 44 organic items on page 1, ranks 47.
 * (search-page-contract.md numbers `organic_position` from 1 on each page and leaves the sum to the
 * client; a rule over several pages needs the sum.) An ASIN shown several times counts at its first
 * organic card. It is `sponsored` when any card of the pages read is a sponsored card of it. An
 * ASIN on none of the pages read (or a `no_results` page) is absent: `organic_rank` null,
 * `sponsored` false — a known state, which `rank_below` counts as worse than any rank.
 */
import type { ChangeSide } from './alert-rules.js';

/** What the rank side reads of one results page: its items in page order. */
export interface RankPage {
  items: readonly { asin: string; sponsored: boolean }[];
}

/**
 * The tracked ASIN's side in one run's pages (page 1 first).
 * @param observedAt when the run's first page was read (ISO 8601 UTC): the side's `observed_at`.
 */
export function rankSideOf(asin: string, pages: readonly RankPage[], observedAt: string): ChangeSide {
  const wanted = asin.toUpperCase();
  let organicSeen = 0;
  let organicRank: number | null = null;
  let sponsored = false;
  for (const page of pages) {
    for (const item of page.items) {
      const mine = item.asin.toUpperCase() === wanted;
      if (item.sponsored) {
        if (mine) sponsored = true;
        continue;
      }
      organicSeen++;
      if (mine && organicRank === null) organicRank = organicSeen;
    }
  }
  return { observed_at: observedAt, organic_rank: organicRank, sponsored };
}
