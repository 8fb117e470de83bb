/**
 * The REST form of an export (api/services/exports.ts): a streamed `text/csv` (csv-stringify, one
 * header row, the flat columns below) or `application/x-ndjson` (JSON Lines: one Product per line
 * for history; one row object per line for a batch's results) answer, with headers saying what it
 * cost (`X-Cost`, USD) and, for history, how many rows follow (`X-Rows`). Bytes are produced as the
 * client reads them; a read that fails midway cuts the response off (no terminating chunk), so a
 * truncated file is never mistaken for a whole one.
 *
 * CSV cells that would start with `=`, `+`, `-`, `@`, a tab or a carriage return are prefixed with
 * `'` (csv-stringify `escape_formulas`): product titles come from third-party pages, and a
 * spreadsheet would otherwise run them as formulas.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Product } from '../../core/product.js';
import type { BatchResultItem, ExportStream } from '../services/exports.js';
import type { AppContext } from './context.js';

/** The flat CSV columns of a Product, in order (docs/api.md "Exports"). */
export const PRODUCT_CSV_COLUMNS = [
  'asin', 'marketplace', 'observed_at', 'status', 'title', 'price_amount', 'price_currency', 'bsr_rank', 'bsr_category',
  'rating', 'ratings_count', 'list_price_amount', 'availability_status', 'buy_box_seller_name', 'prime', 'variant', 'byline',
  'url', 'image_url', 'parser_version',
] as const;

/** The CSV columns of a batch's results: the row's outcome, then the Product's columns (empty without one). */
export const BATCH_CSV_COLUMNS = ['row', 'task_id', 'status_code', 'status_message', 'cost', ...PRODUCT_CSV_COLUMNS] as const;

/** A Product as one CSV record (lists joined with `; `). */
export function productCsvRecord(p: Product): Record<(typeof PRODUCT_CSV_COLUMNS)[number], string | number | boolean | null> {
  return {
    asin: p.asin, marketplace: p.marketplace, observed_at: p.observed_at, status: p.status, title: p.title,
    price_amount: p.price?.amount ?? null, price_currency: p.price?.currency ?? null, bsr_rank: p.bsr?.rank ?? null, bsr_category: p.bsr?.category ?? null,
    rating: p.rating, ratings_count: p.ratings_count, list_price_amount: p.list_price?.amount ?? null, availability_status: p.availability?.status ?? null,
    buy_box_seller_name: p.buy_box?.seller_name ?? null, prime: p.prime, variant: p.variant, byline: p.byline.join('; '),
    url: p.url, image_url: p.image_url, parser_version: p.parser_version,
  };
}

function batchCsvRecord(item: BatchResultItem): Record<string, unknown> {
  const product = item.product ? productCsvRecord(item.product) : { asin: item.asin, marketplace: item.marketplace };
  return { row: item.row, task_id: item.task_id, status_code: item.status_code, status_message: item.status_message, cost: item.cost, ...product };
}

/** Maps an async iterable. */
async function* mapItems<T, R>(items: AsyncIterable<T>, f: (item: T) => R): AsyncGenerator<R> {
  for await (const item of items) yield f(item);
}

/** The byte stream of an export in its format. */
function body<R>(stream: ExportStream<R>, columns: readonly string[], record: (item: R) => unknown): Readable {
  if (stream.format === 'jsonl') return Readable.from(mapItems(stream.items, (item) => `${JSON.stringify(item)}\n`));
  const csv = stringify({ header: true, columns: [...columns], escape_formulas: true, cast: { boolean: (b) => (b ? 'true' : 'false') } });
  const source = Readable.from(mapItems(stream.items, record), { objectMode: true });
  // An error of the source destroys the CSV stream too, which cuts the response off.
  source.on('error', (error) => csv.destroy(error));
  return source.pipe(csv);
}

/** Sets the status and headers of an export answer, and what it meters. */
function headers(ctx: AppContext, stream: ExportStream<unknown>, endpoint: string): void {
  ctx.status = 200;
  ctx.type = stream.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${stream.filename}"`);
  ctx.set('X-Cost', String(stream.cost));
  if (stream.rows !== null) ctx.set('X-Rows', String(stream.rows));
  ctx.state.usage = { endpoint, tasks: stream.elements, cost: stream.cost };
}

/** Answers `ctx` with a history export: one Product per JSON line, or a CSV record per Product. */
export function sendHistoryExport(ctx: AppContext, stream: ExportStream<Product>): void {
  headers(ctx, stream, 'history_export');
  ctx.body = body(stream, PRODUCT_CSV_COLUMNS, productCsvRecord);
}

/** Answers `ctx` with a batch's results: one row object per JSON line, or a CSV record per row. */
export function sendBatchExport(ctx: AppContext, stream: ExportStream<BatchResultItem>): void {
  headers(ctx, stream, 'batch_results');
  ctx.body = body(stream, BATCH_CSV_COLUMNS, batchCsvRecord);
}
