/**
 * Bulk task_post (`Content-Type: text/csv` or `application/x-ndjson`, up to 100,000 rows): every
 * row is a task_post element and gets exactly the rules of one (api/services/product-tasks.ts):
 * validated on its own (a bad row fails alone and is never charged), charged at posting in upload
 * order while the balance covers it (40200 for the rest, not charged), completed at once from the
 * reuse window, else its workflow started (a refused start: 50301, refunded). The answer is one
 * task — the batch — whose result summarises the rows and lists the refused ones; every row's
 * outcome stays in `batch_rows` for the batch's results export.
 *
 * Tasks per minute: the rows of a bulk upload count against the account's tasks-per-minute limit
 * like the task objects of a JSON body, but row by row: valid rows take what is left of the
 * window, chunk after chunk, and the rows beyond it are refused with 40202 (not charged; the answer
 * carries `retry_after`, the seconds until the window ends). Invalid rows take nothing.
 *
 * Memory stays constant: rows are read back from the spool file (api/rest/bulk-upload.ts) and
 * handled in chunks of CHUNK rows — one statement charges, stores and records a chunk
 * (core/batches.ts), the chunk's workflows start (START_CONCURRENCY at a time) while the next chunk
 * is read, and only the first BULK_LIMITS.listedErrors refusals are kept for the answer.
 */
import pLimit from 'p-limit';
import type { AuthAccount } from '../../core/authentication.js';
import { chargeBatchChunk, createBatch, finishBatch, recordRejections, type BatchRejection, type BatchTaskRow } from '../../core/batches.js';
import { toMicros, fromMicros } from '../../core/domain/money.js';
import { STATUS, statusMessage, type StatusCode } from '../../core/domain/status-codes.js';
import { urgencyOfPriority } from '../../core/domain/task-messages.js';
import { webhookKindsOf, type WebhookKind } from '../../core/domain/webhook-messages.js';
import { ChargedFailure, DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { planOf, taskPostPrice } from '../../core/pricing.js';
import type { AccountRateLimits } from '../../core/rate-limits.js';
import { BULK_LIMITS, type BulkFormat } from '../../core/validation/analytics.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { taskPostTask, webhookUrlChecks } from '../../core/validation/requests.js';
import { batchOutcome, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { retentionMs, startOrFail, startWebhooks, type ProductTaskDeps } from './product-tasks.js';

/** Rows charged and stored by one statement. */
const CHUNK = 500;
/** Workflow starts under way at once. */
const START_CONCURRENCY = 16;

/** One row of an upload as read: the task object, or why it could not be read (40000). */
export type UploadRow = { row: number; record: Record<string, unknown> } | { row: number; error: string };

/** An upload read to its end and accepted as a whole (api/rest/bulk-upload.ts `spoolUpload`). */
export interface BulkUpload {
  format: BulkFormat;
  rows: number;
  rowsOf(): AsyncIterable<UploadRow>;
}

/** A refused row as the answer lists it. */
export interface RowError {
  row: number;
  status_code: StatusCode;
  status_message: string;
}

/** The result of the batch task (the answer's only task). */
export interface BatchSummary {
  batch_id: string;
  format: BulkFormat;
  rows: number;
  /** Rows that became tasks (20100), charged at posting. */
  accepted: number;
  /** Rows refused (not charged). */
  rejected: number;
  /** USD charged. */
  cost: number;
  /** Refused rows per code. */
  rejected_by_code: Record<string, number>;
  /** The first BULK_LIMITS.listedErrors refused rows, by row. */
  errors: RowError[];
  /** True when more rows were refused than `errors` lists (every row is in the results export). */
  errors_truncated: boolean;
  /** Seconds until the tasks-per-minute window ends, when rows were refused with 40202; else null. */
  retry_after: number | null;
  /** Path of the batch's results export. */
  results: string;
}

interface PendingRow extends BatchTaskRow {
  webhookKinds: WebhookKind[];
}

/** Counts and the listed errors of a batch being answered. */
class Tally {
  accepted = 0;
  rejected = 0;
  micros = 0;
  retryAfter: number | null = null;
  readonly byCode: Record<string, number> = {};
  readonly errors: RowError[] = [];

  accept(cost: number): void {
    this.accepted++;
    this.micros += toMicros(cost);
  }

  refuse(row: number, code: StatusCode, message: string): void {
    this.rejected++;
    this.byCode[code] = (this.byCode[code] ?? 0) + 1;
    if (this.errors.length < BULK_LIMITS.listedErrors) this.errors.push({ row, status_code: code, status_message: message });
  }

  /** An accepted task that failed afterwards within the request (a refused workflow start, refunded). */
  undo(row: number, cost: number, error: DomainError): void {
    this.accepted--;
    this.micros -= toMicros(cost);
    this.refuse(row, error.code, error.message);
  }
}

/** Deps of a bulk upload: task_post's plus the app's rate limiter. */
export interface BulkDeps extends ProductTaskDeps {
  rateLimits: AccountRateLimits;
}

/**
 * Answers a bulk task_post (see the module comment): HTTP 200 with one task, the batch, whose
 * status is 20100 when at least one row was accepted, else the code of the first refused row.
 * When a statement fails after rows were charged, the answer still comes: the charged rows as
 * accepted, every row the failure left unsettled as 50000 (not charged), so that the answer, stored
 * under an Idempotency-Key, is what a retry gets (a retry never pays for a row twice).
 * @throws the database's error when a statement fails before any row was kept charged (nothing
 *   changed); ChargedFailure when the batch's totals cannot be stored after rows were charged
 *   (the charged rows keep their tasks, which the task reconciler starts or refunds)
 */
export async function bulkTaskPost(deps: BulkDeps, account: AuthAccount, upload: BulkUpload): Promise<BatchOutcome> {
  const sql = deps.db.sql;
  const plan = planOf(account.plan);
  const checks = webhookUrlChecks({ allowlist: deps.config.WEBHOOK_ALLOWLIST, ports: deps.config.WEBHOOK_PORTS });
  const batchId = newTaskId();
  await createBatch(sql, { id: batchId, accountId: account.id, format: upload.format });
  const tally = new Tally();
  const limit = pLimit(START_CONCURRENCY);
  let valid: PendingRow[] = [];
  let refused: BatchRejection[] = [];
  let starting: Promise<unknown> = Promise.resolve();

  const refuse = (row: number, error: DomainError, asin: string | null = null, marketplace: string | null = null) => {
    tally.refuse(row, error.code, error.message);
    refused.push({ row, statusCode: error.code, statusMessage: error.message, asin, marketplace });
  };

  const flush = async () => {
    const rows = valid;
    const rejections = refused;
    valid = [];
    refused = [];
    // Until the chunk's statement has answered, its rows are neither charged nor refused.
    unsettled = rows;
    const { granted, retryAfterSeconds } = await deps.rateLimits.takeTasksUpTo(account.id, account.limits, rows.length);
    for (const r of rows.slice(granted)) {
      tally.refuse(r.row, STATUS.RATE_LIMITED, statusMessage(STATUS.RATE_LIMITED));
      rejections.push({ row: r.row, statusCode: STATUS.RATE_LIMITED, statusMessage: statusMessage(STATUS.RATE_LIMITED), asin: r.asin, marketplace: r.marketplace });
      tally.retryAfter = Math.max(tally.retryAfter ?? 0, retryAfterSeconds);
    }
    const charged = rows.slice(0, granted);
    unsettled = charged;
    const reuseWindow = deps.config.REUSE_WINDOW;
    const outcomes = await chargeBatchChunk(sql, {
      accountId: account.id, batchId, rows: charged, note: 'task_post',
      expiresAt: new Date(Date.now() + retentionMs(deps.config)), reuseSince: reuseWindow > 0 ? new Date(Date.now() - reuseWindow) : null,
    });
    unsettled = [];
    const toStart: PendingRow[] = [];
    const finished: PendingRow[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const row = charged[i]!;
      if (!outcome) {
        tally.refuse(row.row, STATUS.PAYMENT_REQUIRED, statusMessage(STATUS.PAYMENT_REQUIRED));
      } else if (outcome.state === 'queued') {
        tally.accept(row.cost);
        toStart.push(row);
      } else {
        // Finished by the statement from the reuse window: completed, or 40402 refunded (cost 0).
        tally.accept(outcome.cost);
        finished.push(row);
      }
    }
    // The previous chunk's starts finish before this chunk's begin: at most two chunks in flight.
    await starting;
    starting = Promise.all([
      ...toStart.map((row) => limit(async () => {
        const error = await startOrFail(deps, { taskId: row.id, asin: row.asin, marketplace: row.marketplace, webhookKinds: row.webhookKinds, urgency: urgencyOfPriority(row.priority === 2 ? 2 : 1), accountId: account.id });
        if (error) tally.undo(row.row, row.cost, error);
      })),
      ...finished.filter((row) => row.webhookKinds.length).map((row) => limit(() => startWebhooks(deps, { taskId: row.id, kinds: row.webhookKinds, accountId: account.id }))),
    ]);
    await recordRejections(sql, batchId, rejections);
  };

  let lastRow = 0;
  let unsettled: PendingRow[] = [];
  try {
    for await (const item of upload.rowsOf()) {
      lastRow = item.row;
      if ('error' in item) {
        refuse(item.row, new DomainError('BAD_REQUEST', { message: item.error }));
      } else {
        try {
          const fields = readTaskFields(taskPostTask, item.record, checks);
          if (fields.priority === 2 && !plan.features.highPriority) {
            refuse(item.row, new DomainError('FEATURE_NOT_AVAILABLE'), fields.asin, fields.marketplace.code);
          } else {
            valid.push({
              id: newTaskId(), row: item.row, asin: fields.asin, marketplace: fields.marketplace.code,
              data: { ...item.record, api: 'retail', function: 'task_post' }, cost: taskPostPrice(plan.rates, fields.priority), priority: fields.priority,
              tag: fields.tag, postbackUrl: fields.postback_url, pingbackUrl: fields.pingback_url, webhookKinds: webhookKindsOf(fields.postback_url, fields.pingback_url),
            });
          }
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          refuse(item.row, error);
        }
      }
      if (valid.length >= CHUNK || refused.length >= CHUNK) await flush();
    }
    await flush();
    await starting;
  } catch (error) {
    // Started workflows settle first (a refused start refunds its row).
    await starting.catch(() => undefined);
    // Nothing kept charged: the upload changed nothing, its Idempotency-Key is freed.
    if (tally.accepted === 0) throw error;
    // Rows were charged: the answer reports them, and the rows the failure left unsettled (the
    // chunk whose statement failed, the rows not read yet) as 50000, never charged. Answered and
    // stored under the Idempotency-Key, a retry replays it instead of charging the rows again.
    deps.logger.error({ err: error, batchId, lastRow }, 'bulk upload failed after charging rows; answering what was done');
    const failed = statusMessage(STATUS.INTERNAL_ERROR);
    const left: BatchRejection[] = [...unsettled, ...valid].map((r) => ({ row: r.row, statusCode: STATUS.INTERNAL_ERROR, statusMessage: failed, asin: r.asin, marketplace: r.marketplace }));
    for (let row = lastRow + 1; row <= upload.rows; row++) left.push({ row, statusCode: STATUS.INTERNAL_ERROR, statusMessage: failed });
    for (const r of left) tally.refuse(r.row, STATUS.INTERNAL_ERROR, failed);
    await recordRejections(sql, batchId, [...refused, ...left]).catch((err: unknown) => deps.logger.error({ err, batchId }, 'could not record the rows of a failed bulk upload'));
  }

  try {
    await finishBatch(sql, { id: batchId, rows: upload.rows, accepted: tally.accepted, rejected: tally.rejected, cost: fromMicros(tally.micros) });
  } catch (error) {
    if (tally.accepted > 0) throw new ChargedFailure(error);
    throw error;
  }
  const cost = fromMicros(tally.micros);
  const errors = [...tally.errors].sort((a, b) => a.row - b.row);
  const summary: BatchSummary = {
    batch_id: batchId, format: upload.format, rows: upload.rows, accepted: tally.accepted, rejected: tally.rejected, cost,
    rejected_by_code: tally.byCode, errors, errors_truncated: tally.rejected > errors.length, retry_after: tally.retryAfter,
    results: `/v1/retail/product/batch_results/${batchId}`,
  };
  const code = tally.accepted > 0 ? STATUS.TASK_CREATED : (errors[0]?.status_code ?? STATUS.BAD_REQUEST);
  const task = taskOutcome({
    id: batchId, code, message: tally.accepted > 0 ? undefined : errors[0]?.status_message, cost,
    path: ['v1', 'retail', 'product', 'task_post'], data: { api: 'retail', function: 'task_post', format: upload.format, rows: upload.rows }, result: [summary],
  });
  return batchOutcome([task]);
}
