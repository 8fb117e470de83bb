/**
 * /openapi.json operations of history analytics and bulk data: POST stats, the history and batch
 * results exports, and the bulk bodies of task_post (`withBulkUpload`, applied to its operation in
 * paths/product.ts).
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { STATUS } from '../../../../core/domain/status-codes.js';
import { BULK_LIMITS, MAX_STATS_POINTS, batchResultsParams, batchResultsQuery, historyExportQuery, statsTask } from '../../../../core/validation/analytics.js';
import { taskArrayBody } from '../../../../core/validation/requests.js';
import { PRODUCT_CSV_COLUMNS, BATCH_CSV_COLUMNS } from '../../exports.js';
import { envelopeOf, errorResponse, jsonOk, operation } from '../operations.js';

const tags = ['product'];
const timestamp = z.string().meta({ format: 'date-time' });

const valueStats = {
  min: z.number(), max: z.number(), avg: z.number().meta({ description: 'Mean of the observations (price: 4 decimals; rank: 2).' }),
  last: z.number().meta({ description: 'The newest value.' }),
  min_at: timestamp.meta({ description: 'The newest observation holding the minimum.' }),
  max_at: timestamp.meta({ description: 'The newest observation holding the maximum.' }),
  last_at: timestamp,
};

/** One stats result (core/product-stats.ts `ProductStats`). */
export const statsResult = z.object({
  asin: z.string(),
  marketplace: z.string(),
  from: timestamp.meta({ description: 'Start of the window (inclusive).' }),
  to: timestamp.meta({ description: 'End of the window (exclusive).' }),
  observations: z.number().int().min(0).meta({ description: 'Observations in the window, whatever their status.' }),
  price: z.object({ ...valueStats, currency: z.string().meta({ description: 'ISO 4217: the currency of the newest priced observation; prices in other currencies are left out.' }) })
    .nullable().meta({ id: 'PriceStats', description: 'Null when no observation of the window has a price.' }),
  bsr: z.object(valueStats).nullable().meta({ id: 'RankStats', description: 'Best Sellers Rank (main category); null when no observation of the window has one.' }),
  points: z.array(z.object({
    at: timestamp.meta({ description: 'The observation\'s time, or the start of its bucket (UTC).' }),
    price: z.number().nullable().meta({ description: 'In `price.currency`; null without a price or in another currency.' }),
    bsr_rank: z.number().int().nullable(),
  })).meta({ description: `The time series, oldest first: one point per observation, or per bucket (its last observation); at most ${MAX_STATS_POINTS}, the newest.` }),
}).meta({ id: 'ProductStats', description: 'Statistics of one product over a window.' });

/** A bulk task_post answer's batch result (api/services/bulk-tasks.ts `BatchSummary`). */
const batchSummary = z.object({
  batch_id: z.string().meta({ format: 'uuid', description: 'Also the id of the answer\'s task.' }),
  format: z.enum(['csv', 'ndjson']),
  rows: z.number().int().min(1),
  accepted: z.number().int().min(0).meta({ description: 'Rows that became tasks (20100), charged at posting.' }),
  rejected: z.number().int().min(0).meta({ description: 'Rows refused, not charged.' }),
  cost: z.number().meta({ description: 'USD charged.' }),
  rejected_by_code: z.record(z.string(), z.number().int()).meta({ description: 'Refused rows per status code.' }),
  errors: z.array(z.object({ row: z.number().int().min(1), status_code: z.number().int(), status_message: z.string() }))
    .meta({ description: `The first ${BULK_LIMITS.listedErrors} refused rows, by row (1 = the first data row).` }),
  errors_truncated: z.boolean(),
  retry_after: z.number().int().nullable().meta({ description: 'Seconds until the tasks-per-minute window ends, when rows were refused with 40202.' }),
  results: z.string().meta({ description: 'Path of the batch\'s results export.' }),
}).meta({ id: 'BatchSummary' });

const text = (description: string) => z.string().meta({ description });
const exportHeaders = z.object({
  'X-Cost': z.string().meta({ description: 'USD charged for the export.' }),
  'X-Rows': z.string().optional().meta({ description: 'Rows that follow (history export).' }),
});

function exportOk(description: string, csv: string, jsonl: string): ZodOpenApiResponseObject {
  return {
    description: `${description} Streamed; a read that fails midway cuts the response off.`,
    headers: exportHeaders,
    content: { 'text/csv': { schema: text(csv) }, 'application/x-ndjson': { schema: text(jsonl) } },
  };
}

const BAD_QUERY = errorResponse([STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN], 'A query parameter is invalid; the message names it.');

/** Operations of stats and the exports. */
export const analyticsPaths: ZodOpenApiPathsObject = {
  '/v1/retail/product/stats': {
    post: operation({
      operationId: 'stats',
      tags,
      summary: 'Statistics over a product\'s history',
      description: 'Per element (1 to 100): min / max / average / last of price and BSR rank with when each was observed, the number of observations and the time series of one product over a window (`days`, default 90, or `from` / `to`), optionally one point per hour or day. Charged per element at the `history` rate, like history.',
      auth: 'required',
      body: taskArrayBody(statsTask),
      ok: jsonOk('One task per element with its statistics.', envelopeOf('StatsResponse', statsResult, [STATUS.OK, STATUS.PAYMENT_REQUIRED, STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN, STATUS.INTERNAL_ERROR])),
      responses: { 402: errorResponse([STATUS.PAYMENT_REQUIRED], 'The balance covers no element of the request.') },
    }),
  },
  '/v1/retail/product/history/export': {
    get: operation({
      operationId: 'historyExport',
      tags,
      summary: 'Export a product\'s history',
      description: 'Every stored observation of one product (optionally within UTC days), newest first, as CSV or JSON Lines. Charged like history: one `history` element per started 1,000 rows (at least one), before the first row is sent.',
      auth: 'required',
      query: historyExportQuery,
      ok: exportOk('The observations.', `A header row, then one record per observation: ${PRODUCT_CSV_COLUMNS.join(', ')}. Cells starting with =, +, -, @, tab or CR are prefixed with '.`, 'One Product (JSON) per line.'),
      responses: { 400: BAD_QUERY, 402: errorResponse([STATUS.PAYMENT_REQUIRED]) },
    }),
  },
  '/v1/retail/product/batch_results/{batch_id}': {
    get: operation({
      operationId: 'batchResults',
      tags,
      summary: 'Export the results of a bulk upload',
      description: 'Every row of a CSV / JSON Lines task_post in row order: its task and code (40401 while unfinished; the final code after), and the Product of a task finished with 20000. Free; finished tasks sent are marked collected, as task_get does.',
      auth: 'required',
      path: batchResultsParams,
      query: batchResultsQuery,
      ok: exportOk('The rows.', `A header row, then one record per row: ${BATCH_CSV_COLUMNS.join(', ')}.`, 'One object per line: `row`, `task_id`, `status_code`, `status_message`, `asin`, `marketplace`, `cost` (USD), `product` (Product or null).'),
      responses: { 400: errorResponse([STATUS.INVALID_FIELD], 'A bad `format`.'), 404: errorResponse([STATUS.NOT_FOUND], 'Unknown batch id.') },
    }),
  },
};

/**
 * task_post's operation with the bulk bodies added: `text/csv` and `application/x-ndjson`, their
 * answer (one task, the batch) and their limits.
 */
export function withBulkUpload(op: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const content = op.requestBody && 'content' in op.requestBody ? op.requestBody.content : {};
  const ok = (op.responses as Record<string, ZodOpenApiResponseObject>)['200']!;
  return {
    ...op,
    description: `${op.description ?? ''}\n\n**Bulk**: with \`Content-Type: text/csv\` (a header row naming the columns: \`asin,marketplace,priority,tag,postback_url,pingback_url\`, others echoed in \`data\`; an empty cell is an absent field) or \`application/x-ndjson\` (one task object per line), up to ${BULK_LIMITS.rows} rows and ${BULK_LIMITS.bytes} bytes, rows of at most ${BULK_LIMITS.rowBytes} bytes. Each row is a task_post element with the same rules and prices; a bad row fails alone and is never charged. Valid rows take what is left of the tasks-per-minute window; rows beyond it answer 40202 (not charged). The answer is one task, the batch (\`result[0]\`: BatchSummary); every row's outcome is in GET /v1/retail/product/batch_results/{batch_id}. Idempotency-Key applies (the upload is identified by its bytes).`,
    requestBody: {
      required: true,
      content: {
        ...content,
        'text/csv': { schema: text('CSV with a header row (UTF-8; a byte order mark is ignored).') },
        'application/x-ndjson': { schema: text('JSON Lines: one task object per line; blank lines are skipped.') },
      },
    },
    responses: {
      ...op.responses,
      200: {
        ...ok,
        description: `${ok.description} A bulk upload answers TaskPostBulkResponse: one task, the batch, 20100 when a row was accepted, else the first refused row's code.`,
        content: {
          'application/json': {
            schema: z.union([
              ok.content!['application/json']!.schema as z.ZodType,
              envelopeOf('TaskPostBulkResponse', batchSummary, [STATUS.TASK_CREATED, STATUS.PAYMENT_REQUIRED, STATUS.RATE_LIMITED, STATUS.INVALID_FIELD, STATUS.BAD_REQUEST]),
            ]),
          },
        },
      },
      413: errorResponse([STATUS.BAD_REQUEST], `The body is larger than 1048576 bytes (JSON) or ${BULK_LIMITS.bytes} bytes (bulk).`),
    },
  };
}
