/**
 * Request rules of history analytics and bulk input/export (issue "History analytics…" wire
 * shapes): the stats element and its window, the export query strings, and the limits of a bulk
 * task_post upload. The same schemas validate REST and GraphQL and render /openapi.json; errors map
 * to the spec's codes as every other field does (core/validation/read-fields.ts): 40501 naming the
 * field, 40502 marketplace, 40503 ASIN.
 */
import { z } from 'zod';
import { DomainError } from '../errors.js';
import * as f from './fields.js';

const DAY_MS = 86_400_000;

/** Default window of a stats request when neither `days` nor `from` is given. */
export const DEFAULT_STATS_DAYS = 90;
/** Largest `days`. */
export const MAX_STATS_DAYS = 3650;
/** Most points (and changes) one stats element returns: the newest, in time order. */
export const MAX_STATS_POINTS = 10_000;

/** Bucket of a stats time series: the bucket's last observation stands for it. */
export const STATS_BUCKETS = ['hour', 'day'] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];

/** A UTC day (YYYY-MM-DD) or an ISO 8601 date-time with `Z` or an offset. */
const windowBound = z.union([f.day, z.iso.datetime({ offset: true })])
  .meta({
    description: 'A UTC day (YYYY-MM-DD: its midnight for `from`, the following midnight for `to`, so the day is included) or an ISO 8601 date-time with `Z` or an offset.',
    examples: ['2026-01-01', '2026-01-31T12:00:00Z'],
  });

/** The window fields shared by REST stats and GraphQL `StatsWindow`. */
export const statsWindowFields = {
  days: z.number().int().min(1).max(MAX_STATS_DAYS).nullable().default(null)
    .meta({ description: `Days counted back from \`to\` (default now): 1 to ${MAX_STATS_DAYS}, default ${DEFAULT_STATS_DAYS} when \`from\` is absent. Not together with \`from\` (40501 \`days\`).`, examples: [90] }),
  from: windowBound.nullable().default(null).meta({ description: 'Start of the window (inclusive). Must be before `to` (else 40501 `from`).' }),
  to: windowBound.nullable().default(null).meta({ description: 'End of the window (exclusive); default now.' }),
};

/** One stats element (`POST /v1/retail/product/stats`). */
export const statsTask = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  ...statsWindowFields,
  bucket: z.enum(STATS_BUCKETS).nullable().default(null)
    .meta({ description: `\`hour\` or \`day\` (UTC): one point per bucket holding its last observation, \`at\` the bucket's start. Absent: one point per observation. At most ${MAX_STATS_POINTS} points, the newest.`, examples: ['day'] }),
}).meta({ id: 'StatsTask', description: 'One task of a stats body: statistics and time series of one product over a window.' });

/** The window object of GraphQL `StatsWindow` (same fields, same rules). */
export const statsWindow = z.object(statsWindowFields);

/** A resolved window: observations with `from <= observed_at < to`. */
export interface StatsWindowBounds {
  from: Date;
  to: Date;
}

/** The instant of a validated bound: a day is its midnight (`end`: the next midnight). */
function instantOf(bound: string, end: boolean): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(bound)) return new Date(Date.parse(`${bound}T00:00:00Z`) + (end ? DAY_MS : 0));
  return new Date(bound);
}

/**
 * The window of validated window fields: `[from, to)`, `to` default `now`, `from` default `to`
 * minus `days` (default 90).
 * @throws DomainError 40501 `days` when both `days` and `from` are given; 40501 `from` when the
 *   window is empty or reversed (`from` not before `to`)
 */
export function resolveStatsWindow(fields: { days: number | null; from: string | null; to: string | null }, now: Date): StatsWindowBounds {
  if (fields.days !== null && fields.from !== null) throw DomainError.invalidField('days');
  const to = fields.to === null ? now : instantOf(fields.to, true);
  const from = fields.from === null ? new Date(to.getTime() - (fields.days ?? DEFAULT_STATS_DAYS) * DAY_MS) : instantOf(fields.from, false);
  if (!(from.getTime() < to.getTime())) throw DomainError.invalidField('from');
  return { from, to };
}

/** Export formats: CSV (flat columns) or JSON Lines. */
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const exportFormat = z.enum(EXPORT_FORMATS).default('jsonl')
  .meta({ description: '`csv` (flat columns, header row) or `jsonl` (JSON Lines); default `jsonl`.', examples: ['csv'] });

/** GET /v1/retail/product/history/export query. */
export const historyExportQuery = z.object({
  asin: f.asin,
  marketplace: f.marketplace,
  format: exportFormat,
  date_from: f.day.optional().meta({ description: 'First UTC day (YYYY-MM-DD) exported; not after date_to (else 40501 `date_from`).' }),
  date_to: f.day.optional().meta({ description: 'Last UTC day (YYYY-MM-DD) exported.' }),
});

/** GET /v1/retail/product/batch_results/{batch_id} query. */
export const batchResultsQuery = z.object({ format: exportFormat });

/** GET /v1/retail/product/batch_results/{batch_id} path. */
export const batchResultsParams = z.object({
  batch_id: z.string().refine((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s))
    .meta({ format: 'uuid', description: 'The `batch_id` a CSV or JSON Lines task_post answered. Unknown ids (and anything that is not a UUID) answer HTTP 404 / 40400.' }),
});

/** Bulk task_post (`text/csv`, `application/x-ndjson`): limits of one upload. */
export const BULK_LIMITS = {
  /** Rows (data rows; the CSV header and blank lines do not count). More: HTTP 400 / 40001, nothing charged. */
  rows: 100_000,
  /** Bytes of the body. More: HTTP 413 / 40000, nothing charged. */
  bytes: 128 * 1_048_576,
  /** Bytes of one row (a CSV record or a JSON line). More: HTTP 400 / 40000 naming the row, nothing charged. */
  rowBytes: 65_536,
  /** Per-row errors listed in the answer; every row's outcome is in the batch's results export. */
  listedErrors: 1_000,
} as const;

/** The content types of a bulk upload and their format names. */
export const BULK_CONTENT_TYPES = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' } as const;
export type BulkFormat = (typeof BULK_CONTENT_TYPES)[keyof typeof BULK_CONTENT_TYPES];

/** The bulk format of a request's Content-Type (parameters such as `charset` ignored), else undefined. */
export function bulkFormatOf(contentType: string | undefined): BulkFormat | undefined {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return Object.hasOwn(BULK_CONTENT_TYPES, media) ? BULK_CONTENT_TYPES[media as keyof typeof BULK_CONTENT_TYPES] : undefined;
}
