/**
 * The shapes the search endpoints answer (search-page-contract.md "SearchResults", "Item fields",
 * "API"): SearchResults, its items, a search task in tasks_ready, a rank history point.
 */
import { z } from 'zod';
import { MARKETPLACE_CODES } from '../../../core/marketplaces.js';
import { price } from './resources.js';

const timestamp = z.string().meta({ format: 'date-time', examples: ['2026-01-31T15:30:00.000Z'] });
const marketplaceCode = z.enum(MARKETPLACE_CODES).meta({ description: 'Marketplace code.' });
const position = z.number().int().min(1);

/** One card of the main result grid. */
export const searchItem = z.object({
  position: position.meta({ description: '1-based index among the items of this page, sponsored included.' }),
  organic_position: position.nullable().meta({ description: '1-based index among the non-sponsored items of this page; null for a sponsored item. A page n > 1 numbers from 1 again.' }),
  sponsored: z.boolean(),
  asin: z.string().regex(/^[A-Z0-9]{10}$/),
  url: z.string().meta({ description: '`https://www.<domain>/dp/<ASIN>`.' }),
  title: z.string().nullable(),
  brand: z.string().nullable().meta({ description: 'The separate brand line of the card, else null.' }),
  price: price.nullable().meta({ description: 'The price to pay for the card\'s main offer; null for a range, no offer, other offers only, another currency.' }),
  list_price: price.nullable().meta({ description: 'The struck-through price of the same block ("List:", "Typical:", "Was:", …).' }),
  rating: z.number().min(0).max(5).nullable(),
  ratings_count: z.number().int().min(0).nullable(),
  bought_past_month: z.number().int().min(0).nullable().meta({ description: 'Lower bound of "N+ bought in past month".' }),
  badges: z.array(z.string()),
  prime: z.boolean().nullable().meta({ description: 'Null when the card shows no price.' }),
  coupon: z.string().nullable(),
  delivery: z.string().nullable(),
  image_url: z.string().nullable(),
  variants_count: z.number().int().min(0).nullable(),
}).meta({ id: 'SearchItem', description: 'One item of a results page (search-page-contract.md "Item fields").' });

/** One read of one results page. */
export const searchResults = z.object({
  keyword: z.string().meta({ description: 'As posted: trimmed, inner white space collapsed, case kept.' }),
  marketplace: marketplaceCode,
  page: position.meta({ description: 'The results page read.' }),
  url: z.string().meta({ description: '`https://www.<domain>/s?k=<keyword>` plus `&page=<n>` when n > 1.' }),
  observed_at: timestamp.meta({ description: 'When the page was read, UTC (the pages of one task share their first page\'s time).' }),
  parser_version: z.string(),
  status: z.enum(['ok', 'no_results']).meta({ description: '`no_results`: the "No results for …" page (items empty; an answer, charged).' }),
  total_results: z.number().int().min(0).nullable().meta({ description: 'Lower bound stated by the result-count line; null when the page states none.' }),
  results_text: z.string().nullable(),
  items: z.array(searchItem),
  quality: z.object({
    version: z.number().int(),
    cards_seen: z.number().int().min(0),
    cards_read: z.number().int().min(0),
    missing: z.array(z.object({ position: position, field: z.string(), reason: z.string() })),
  }).meta({ description: 'Why item fields are null, per card.' }),
}).meta({ id: 'SearchResults', description: 'One read of a search results page.' });

/** A finished search task not yet collected. */
export const searchTasksReadyRow = z.object({
  id: z.string().meta({ format: 'uuid' }),
  keyword: z.string(),
  marketplace: marketplaceCode,
  tag: z.string().nullable(),
  status_code: z.number().int().meta({ description: 'Final task code: 20000 or 50301.' }),
  date_posted: timestamp,
  date_completed: timestamp,
  endpoint: z.string().meta({ description: 'Path of task_get for the task.', examples: ['/v1/retail/search/task_get/01311530-8b7e-4c1d-9f2a-6f0e4c7d2b11'] }),
}).meta({ id: 'SearchTasksReadyRow', description: 'A finished search task_post task not yet collected.' });

/** Where the ASIN stood in one stored read. */
export const rankPoint = z.object({
  observed_at: timestamp,
  page: position.meta({ description: 'The page it was found on (the last page read when absent).' }),
  position: position.nullable().meta({ description: 'Its first position in that read; null when absent.' }),
  organic_position: position.nullable(),
  sponsored: z.boolean().nullable(),
}).meta({ id: 'RankPoint', description: 'One stored read of the keyword: where the ASIN stood, null fields when it was absent.' });
