/**
 * A keyword subscription as the monitoring endpoints answer it (search-page-contract.md "API"
 * Monitoring; api/services/monitoring.ts `KeywordSubscriptionObject`), for /openapi.json only.
 * Compile-time checks keep each schema's keys (and the add/delete shape's types) equal to its TypeScript type.
 */
import { z } from 'zod';
import type { KeywordSubscriptionObject } from '../../services/monitoring.js';
import { sharedSubscriptionFields, storedAsin } from './resources.js';
import { searchResults } from './search-resources.js';

const keywordSubscriptionFields = {
  ...sharedSubscriptionFields,
  kind: z.literal('search').meta({ description: 'A keyword subscription (product subscriptions carry `asin` and no `kind`).' }),
  keyword: z.string().meta({ description: 'As subscribed: trimmed, inner white space collapsed, case kept; matched case-insensitively.' }),
  pages: z.number().int().min(1).max(5).meta({ description: 'Results pages read per run; each delivered page is charged the monitoring search price.' }),
  track_asins: z.array(storedAsin).meta({ description: 'The ASINs whose places in the results the rank rules judge.' }),
};

/** A keyword subscription as monitoring/add and monitoring/delete return it. */
export const keywordSubscription = z.object(keywordSubscriptionFields).meta({ id: 'KeywordSubscription', description: 'A keyword monitoring subscription (search-page-contract.md "API" Monitoring).' });

/** A keyword subscription as monitoring/list returns it. */
export const listedKeywordSubscription = z.object({
  ...keywordSubscriptionFields,
  latest_results: z.array(searchResults).nullable()
    .meta({ description: 'The SearchResults of the last delivered run, one per page read, page order (they share page 1\'s `observed_at`); null before the first delivery.' }),
}).meta({ id: 'ListedKeywordSubscription', description: 'A keyword subscription as monitoring/list returns it.' });

type Describes<O, T> = [O] extends [T] ? ([keyof O] extends [keyof T] ? ([keyof T] extends [keyof O] ? true : false) : false) : false;
type Assert<T extends true> = T;
export type _KeywordSubscriptionSchemasDescribeTypes = [
  Assert<Describes<z.output<typeof keywordSubscription>, Omit<KeywordSubscriptionObject, 'latest_results'>>>,
  // `latest_results` is search-resources.ts `searchResults`, whose `quality.missing[].reason` is any string.
  Assert<Describes<keyof z.output<typeof listedKeywordSubscription>, keyof Required<KeywordSubscriptionObject>>>,
];
