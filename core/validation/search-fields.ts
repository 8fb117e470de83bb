/**
 * The fields of the search endpoints (search-page-contract.md "API"): the keyword, the results
 * pages of a task, the days of a rank history, and the body elements built from them with the
 * product endpoints' fields (marketplace, ASIN, priority, tag, webhook URLs). Read like every other
 * element by core/validation/read-fields.ts: text the database cannot store (U+0000, unpaired
 * surrogates) is refused there first, then each rule below; every failure is 40501 naming the
 * field (40502 / 40503 for marketplace / ASIN, as for products).
 */
import { z } from 'zod';
import { checkWebhookUrl } from '../webhooks/url-policy.js';
import * as f from './fields.js';
import type { FieldChecks } from './read-fields.js';

/** Most characters (code points) of a keyword as posted. */
export const KEYWORD_MAX = 200;

// C0 and C1 control characters (tab and line breaks included): a marketplace search box cannot
// hold them, so a keyword carrying one is a client error rather than something to search for.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;

/**
 * A keyword: 1 to 200 characters as posted, no control character, not only white space; read as
 * posted with the ends trimmed and every inner run of white space one space (case kept), which is
 * the keyword stored, searched for and echoed in results.
 */
export const keyword = z.string()
  .refine((s) => s.length <= KEYWORD_MAX || (s.length <= 2 * KEYWORD_MAX && [...s].length <= KEYWORD_MAX), { abort: true })
  .refine((s) => !CONTROL.test(s), { abort: true })
  .transform((s) => s.replace(/\s+/gu, ' ').trim())
  .refine((s) => s.length > 0)
  .meta({
    description: 'The search keyword, 1 to 200 characters, as typed into the marketplace\'s search box: no control characters, not only white space. '
      + 'Stored and echoed trimmed with inner white space collapsed (case kept); reuse, `search` and rank history match it case-insensitively.',
    examples: ['running shoes'],
    override: { minLength: 1, maxLength: KEYWORD_MAX },
  });

/** Results pages a search task reads, 1 to 5 (default 1). */
export const pages = z.number().int().min(1).max(5).default(1)
  .meta({ description: 'Results pages to read, 1 to 5 (default 1); charged per page at posting.', examples: [1] });

/** Days of rank history, 1 to 365 (default 30). */
export const rankDays = z.number().int().min(1).max(365).default(30)
  .meta({ description: 'Days back from now whose stored reads are answered, 1 to 365 (default 30).', examples: [30] });

/** One search task_post element. */
export const searchTaskPostTask = z.object({
  keyword,
  marketplace: f.marketplace,
  pages,
  priority: f.priority,
  tag: f.tag.default(null),
  postback_url: f.postbackUrl,
  pingback_url: f.pingbackUrl,
}).meta({ id: 'SearchTaskPostTask', description: 'One task of a search task_post body: the results pages 1..pages of keyword on marketplace.' });

/** The one element of a search live body (page 1 only). */
export const searchLiveTask = z.object({
  keyword,
  marketplace: f.marketplace,
  pages: z.literal(1).default(1).meta({ description: 'Only 1: a live search reads the first results page.' }),
}).meta({ id: 'SearchLiveTask', description: 'The one task of a search live body.' });

/** One rank_history element. */
export const rankHistoryTask = z.object({
  keyword,
  marketplace: f.marketplace,
  asin: f.asin,
  days: rankDays,
}).meta({ id: 'RankHistoryTask', description: 'One task of a rank_history body: where `asin` stood in the stored reads of `keyword` on `marketplace`.' });

/** GraphQL `search` and `rankHistory` arguments besides their own: the keyword and marketplace. */
export const searchKey = z.object({ keyword, marketplace: f.marketplace, page: z.number().int().min(1).max(5).default(1) });

/** The URL rules of api-spec.md "Events" for a search task's `postback_url` and `pingback_url` (as `webhookUrlChecks`). */
export function searchWebhookUrlChecks({ allowlist, ports }: { allowlist: readonly string[]; ports: readonly number[] }): FieldChecks<typeof searchTaskPostTask> {
  const allowed = (url: string | null) => url === null || checkWebhookUrl(url, allowlist, { ports }).ok;
  return { postback_url: allowed, pingback_url: allowed };
}
