/**
 * Exports, streamed in pages (constant memory): a product's history
 * (`GET /v1/retail/product/history/export`) and a bulk batch's results
 * (`GET /v1/retail/product/batch_results/{batch_id}`). The services yield rows; the REST presenter
 * (api/rest/exports.ts) writes them as CSV or JSON Lines.
 *
 * History export charging (reusing POST history's rule: one `history` element reads up to 1,000
 * rows): the export counts its rows first and is charged ceil(rows / 1,000) history elements, at
 * least one, in one ledger entry, before the first row is sent; it then sends exactly that many
 * rows (observations stored after the export began are not in it). The charge is a reservation
 * (core/reservations.ts): kept once the last row is sent; a read that fails midway refunds it and
 * cuts the response off; an export the client abandons is refunded by the reconciler. A batch's
 * results export is free, like task_get,
 * and marks the finished tasks it sends collected (they leave tasks_ready).
 */
import type { AuthAccount } from '../../core/authentication.js';
import { findBatch, readBatchResults } from '../../core/batches.js';
import { fromMicros, toMicros } from '../../core/domain/money.js';
import { STATUS, asStatusCode, statusMessage, type StatusCode } from '../../core/domain/status-codes.js';
import { DomainError } from '../../core/errors.js';
import { countExportRows, readExportPage, type ExportCursor, type ExportRange } from '../../core/history-export.js';
import { newTaskId } from '../../core/ids.js';
import { tryCharge } from '../../core/ledger.js';
import { keepReservations, readReservationKey, refundReservation } from '../../core/reservations.js';
import { productFromJson } from '../../core/observation-codec.js';
import { planOf } from '../../core/pricing.js';
import type { Product } from '../../core/product.js';
import { batchResultsParams, batchResultsQuery, historyExportQuery, type ExportFormat } from '../../core/validation/analytics.js';
import { readRequestFields } from '../../core/validation/read-fields.js';
import type { ProductTaskDeps } from './product-tasks.js';

const DAY_MS = 86_400_000;
/** Rows per page read (and per history element charged). */
export const EXPORT_PAGE = 1000;

/** An export ready to stream: its format, what it cost and its rows. */
export interface ExportStream<R> {
  format: ExportFormat;
  /** File name for Content-Disposition. */
  filename: string;
  /** USD charged (0 for a batch's results). */
  cost: number;
  /** History elements charged (metered as tasks). */
  elements: number;
  /** Rows the export holds (null when not counted first). */
  rows: number | null;
  items: AsyncIterable<R>;
}

/**
 * Opens a history export: validates the query, counts the rows, charges (see the module comment).
 * @throws DomainError 40501 / 40502 / 40503 (a query field), 40200 (the balance does not cover it)
 */
export async function openHistoryExport(deps: ProductTaskDeps, account: AuthAccount, query: Record<string, unknown>): Promise<ExportStream<Product>> {
  const fields = readRequestFields(historyExportQuery, query);
  if (fields.date_from && fields.date_to && fields.date_from > fields.date_to) throw DomainError.invalidField('date_from');
  const now = Date.now();
  const range: ExportRange = {
    asin: fields.asin, marketplace: fields.marketplace.code,
    from: fields.date_from ? new Date(`${fields.date_from}T00:00:00Z`) : null,
    before: new Date(fields.date_to ? Math.min(now, Date.parse(`${fields.date_to}T00:00:00Z`) + DAY_MS) : now),
  };
  const sql = deps.db.sql;
  const rows = await countExportRows(sql, range);
  const elements = Math.max(1, Math.ceil(rows / EXPORT_PAGE));
  const rate = planOf(account.plan).rates.history;
  const cost = fromMicros(toMicros(rate) * elements);
  const exportId = newTaskId();
  // A reservation (core/reservations.ts): kept once the last row is sent, refunded when a page
  // cannot be read, and refunded by the reconciler when neither happened (the client went away).
  const runKey = readReservationKey(exportId);
  if ((await tryCharge(deps.db.prisma, { accountId: account.id, amount: cost, taskId: exportId, note: `history export ${elements}`, runKey })) === null) {
    throw new DomainError('PAYMENT_REQUIRED');
  }
  async function* items(): AsyncGenerator<Product> {
    let left = rows;
    let cursor: ExportCursor | null = null;
    try {
      while (left > 0) {
        const page = await readExportPage(sql, range, cursor, Math.min(EXPORT_PAGE, left));
        if (page.products.length === 0) break;
        left -= page.products.length;
        cursor = page.next;
        yield* page.products;
      }
    } catch (error) {
      await refundReservation(deps.db, { runKey, note: 'history export failed' })
        .catch((err: unknown) => deps.logger.error({ err, exportId }, 'could not refund a failed history export; the reconciler will'));
      throw error;
    }
    await keepReservations(deps.db, [runKey]).catch((err: unknown) => deps.logger.error({ err, exportId }, 'could not settle a history export; the reconciler will refund it'));
  }
  return { format: fields.format, filename: `history-${range.asin}-${range.marketplace}.${fields.format}`, cost, elements, rows, items: items() };
}

/** One row of a batch's results: the row's code (its task's, once finished) and its Product. */
export interface BatchResultItem {
  row: number;
  task_id: string | null;
  status_code: StatusCode;
  status_message: string;
  asin: string | null;
  marketplace: string | null;
  /** USD charged for the row's task (0 for refused rows and refunded tasks). */
  cost: number;
  product: Product | null;
}

/**
 * Opens the export of a batch's results, one item per row in row order. An unfinished task's row
 * answers 40401 (as task_get); a finished one its final code, with its Product on 20000.
 * @throws DomainError 40400 for an unknown batch (or another account's), 40501 for a bad `format`
 */
export async function openBatchExport(deps: ProductTaskDeps, account: AuthAccount, params: Record<string, unknown>, query: Record<string, unknown>): Promise<ExportStream<BatchResultItem>> {
  let batchId: string;
  try {
    batchId = readRequestFields(batchResultsParams, params).batch_id.toLowerCase();
  } catch {
    throw new DomainError('NOT_FOUND');
  }
  const { format } = readRequestFields(batchResultsQuery, query);
  const sql = deps.db.sql;
  if (!(await findBatch(sql, batchId, account.id))) throw new DomainError('NOT_FOUND');
  async function* items(): AsyncGenerator<BatchResultItem> {
    let after = 0;
    for (;;) {
      const page = await readBatchResults(sql, { batchId, afterRow: after, limit: EXPORT_PAGE });
      for (const r of page) {
        const unfinished = r.state === 'queued' || r.state === 'running';
        const code = unfinished ? STATUS.TASK_NOT_READY : asStatusCode(r.status_code);
        yield {
          row: r.row, task_id: r.task_id, asin: r.asin, marketplace: r.marketplace,
          status_code: code, status_message: unfinished ? statusMessage(code) : r.status_message,
          cost: r.cost === null ? 0 : Number(r.cost),
          product: code === STATUS.OK && r.observation ? productFromJson(r.observation) : null,
        };
      }
      if (page.length < EXPORT_PAGE) return;
      after = page.at(-1)!.row;
    }
  }
  return { format, filename: `batch-${batchId}.${format}`, cost: 0, elements: 0, rows: null, items: items() };
}
