/**
 * Reading a bulk task_post body (`text/csv` or `application/x-ndjson`) without holding it: the
 * request stream is counted, hashed (SHA-256, for Idempotency-Key), decoded as strict UTF-8 and
 * parsed (csv-parse, split2) row by row into a spool file of one JSON line per row, in constant
 * memory. Everything that refuses the upload as a whole is found here, before any row is charged:
 * more than BULK_LIMITS.bytes (HTTP 413 / 40000), more than BULK_LIMITS.rows rows (40001), a row
 * longer than BULK_LIMITS.rowBytes, bytes that are not UTF-8, CSV that does not parse, a CSV header
 * without `asin` or `marketplace` (40501 naming it) or with a repeated column (40000). A row that
 * can be told apart but not read (a CSV row with another number of cells than the header, a JSON
 * line that is not a JSON object) is spooled as that row's error (40000 for that row only).
 *
 * CSV: the header names the columns (trimmed, case-insensitive; a column with an empty name is
 * ignored); an empty cell is an absent field; a `priority` cell of digits is a number; every other
 * cell is text, exactly as in a JSON task object. JSON Lines: one task object per line; blank lines
 * are skipped. Rows are numbered from 1 in upload order, the header and blank lines not counted.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { once } from 'node:events';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import split2 from 'split2';
import { DomainError } from '../../core/errors.js';
import { isStorableText, printableName } from '../../core/storable-text.js';
import { BULK_LIMITS, type BulkFormat } from '../../core/validation/analytics.js';
import { HttpError } from './http-error.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './middleware/json-body.js';

/** One spooled row: the task object read, or why the row could not be read. */
export type SpooledRow = { row: number; record: Record<string, unknown> } | { row: number; error: string };

/** An upload read to its end and accepted as a whole. */
export interface SpooledUpload {
  format: BulkFormat;
  /** Data rows. */
  rows: number;
  /** Bytes of the body. */
  bytes: number;
  /** Hex SHA-256 of the body's bytes. */
  sha256: string;
  /** The rows in upload order, read back from the spool file. */
  rowsOf(): AsyncIterable<SpooledRow>;
  /** Removes the spool file. */
  dispose(): Promise<void>;
}

const tooLarge = () => new HttpError('BAD_REQUEST', { httpStatus: 413, message: `Bad Request. Body larger than ${BULK_LIMITS.bytes} bytes.` });
const badRequest = (message: string) => new DomainError('BAD_REQUEST', { message: `Bad Request. ${message}` });

/** Counts and hashes the bytes going through; past BULK_LIMITS.bytes it fails with 413. */
function meter(state: { bytes: number }, hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      state.bytes += chunk.length;
      if (state.bytes > BULK_LIMITS.bytes) return callback(tooLarge());
      hash.update(chunk);
      callback(null, chunk);
    },
  });
}

/** Strict UTF-8 (a byte order mark is dropped); anything else fails with 40000. */
function utf8(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fail = () => badRequest('The body is not valid UTF-8.');
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try { callback(null, decoder.decode(chunk, { stream: true })); } catch { callback(fail()); }
    },
    flush(callback) {
      try { callback(null, decoder.decode()); } catch { callback(fail()); }
    },
  });
}

/** Writes lines to the spool file, waiting when its buffer is full. */
class Spool {
  readonly out: fs.WriteStream;
  rows = 0;
  constructor(readonly file: string) {
    this.out = fs.createWriteStream(file);
  }
  async add(row: { r: Record<string, unknown> } | { e: string }): Promise<void> {
    this.rows++;
    if (this.rows > BULK_LIMITS.rows) return; // counted only: the upload is refused at its end
    if (!this.out.write(`${JSON.stringify(row)}\n`)) await once(this.out, 'drain');
  }
  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'close');
  }
}

/** The columns of a CSV header row (see the module comment). @throws DomainError 40501 / 40000 */
function headerColumns(cells: string[]): string[] {
  const names = cells.map((cell) => cell.trim().toLowerCase());
  for (const name of names) if (!isStorableText(name)) throw DomainError.invalidField(printableName(name));
  for (const required of ['asin', 'marketplace']) if (!names.includes(required)) throw DomainError.invalidField(required);
  const seen = new Set<string>();
  for (const name of names.filter(Boolean)) {
    if (seen.has(name)) throw badRequest(`The CSV header repeats the column \`${printableName(name)}\`.`);
    seen.add(name);
  }
  return names;
}

async function spoolCsv(records: AsyncIterable<string[]>, spool: Spool): Promise<void> {
  let columns: string[] | undefined;
  for await (const cells of records) {
    if (!columns) {
      columns = headerColumns(cells);
      continue;
    }
    if (cells.length !== columns.length) {
      await spool.add({ e: `Bad Request. The row has ${cells.length} cells; the header has ${columns.length}.` });
      continue;
    }
    const record: Record<string, unknown> = {};
    cells.forEach((cell, i) => {
      const name = columns![i]!;
      if (name && cell !== '') record[name] = name === 'priority' && /^\d{1,3}$/.test(cell) ? Number(cell) : cell;
    });
    await spool.add({ r: record });
  }
  if (!columns) throw badRequest('The CSV upload has no header row.');
}

async function spoolNdjson(lines: AsyncIterable<string>, spool: Spool): Promise<void> {
  for await (const line of lines) {
    if (line.trim() === '') continue;
    if (Buffer.byteLength(line) > BULK_LIMITS.rowBytes) throw badRequest(`Row ${spool.rows + 1} is longer than ${BULK_LIMITS.rowBytes} bytes.`);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      await spool.add({ e: 'Bad Request. The row is not valid JSON.' });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) await spool.add({ e: 'Bad Request. The row is not a task object.' });
    else if (nestedDeeperThan(value, MAX_JSON_DEPTH)) await spool.add({ e: `Bad Request. The row is nested deeper than ${MAX_JSON_DEPTH} levels.` });
    else await spool.add({ r: value as Record<string, unknown> });
  }
}

/** A parse failure of the stream as the request's answer (40000 naming where). */
function readError(error: unknown, format: BulkFormat, rows: number): unknown {
  if (error instanceof DomainError) return error;
  if (error instanceof CsvError) {
    if (error.code === 'CSV_MAX_RECORD_SIZE') return badRequest(`Row ${rows + 1} is longer than ${BULK_LIMITS.rowBytes} bytes.`);
    return badRequest(`The CSV does not parse at row ${rows + 1}: ${error.message.slice(0, 200)}`);
  }
  if (format === 'ndjson' && /maximum buffer/i.test((error as Error)?.message ?? '')) return badRequest(`Row ${rows + 1} is longer than ${BULK_LIMITS.rowBytes} bytes.`);
  return error;
}

/**
 * Reads a bulk body to its end into a spool file (see the module comment).
 * @throws HttpError 413 (too many bytes, also from `contentLength` before reading); DomainError
 *   40001 (too many rows), 40000 (no rows, not UTF-8, CSV that does not parse, a row too long, a
 *   repeated column), 40501 (a header without `asin` / `marketplace`, or with a column name the
 *   database cannot store); the stream's own error (client gone)
 */
export async function spoolUpload(body: Readable, format: BulkFormat, contentLength?: number): Promise<SpooledUpload> {
  if (contentLength !== undefined && contentLength > BULK_LIMITS.bytes) throw tooLarge();
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rda-bulk-'));
  const dispose = () => fs.promises.rm(dir, { recursive: true, force: true });
  const spool = new Spool(path.join(dir, 'rows.jsonl'));
  const state = { bytes: 0 };
  const hash = createHash('sha256');
  // The request is piped, not put in the pipeline: a refusal must not destroy it (the socket would
  // go with it, and the answer too). Its unread rest is drained instead.
  const counted = meter(state, hash);
  const failed = (error: Error) => counted.destroy(error);
  body.on('error', failed);
  body.pipe(counted);
  // What the row reader refused with: a pipeline whose last step throws may reject with the
  // AbortError of the streams it then destroys (a request socket), not with that step's error.
  let refusal: unknown;
  const refused = (error: unknown): never => {
    refusal ??= error;
    throw error;
  };
  try {
    try {
      if (format === 'csv') {
        await pipeline(counted, utf8(), parse({ max_record_size: BULK_LIMITS.rowBytes, relax_column_count: true, skip_empty_lines: true }),
          (records: AsyncIterable<string[]>) => spoolCsv(records, spool).catch(refused));
      } else {
        await pipeline(counted, utf8(), split2({ maxLength: BULK_LIMITS.rowBytes }), (lines: AsyncIterable<string>) => spoolNdjson(lines, spool).catch(refused));
      }
    } finally {
      body.off('error', failed);
      await spool.close();
    }
  } catch (error) {
    body.unpipe(counted);
    body.resume();
    await dispose();
    throw readError(refusal ?? error, format, spool.rows);
  }
  if (spool.rows === 0) {
    await dispose();
    throw badRequest('The upload holds no rows.');
  }
  if (spool.rows > BULK_LIMITS.rows) {
    await dispose();
    throw new DomainError('TOO_MANY_TASKS', { message: `Too many rows in one upload (max ${BULK_LIMITS.rows}).` });
  }
  return {
    format, rows: spool.rows, bytes: state.bytes, sha256: hash.digest('hex'), dispose,
    async *rowsOf() {
      const lines = readline.createInterface({ input: fs.createReadStream(spool.file), crlfDelay: Infinity });
      let row = 0;
      for await (const line of lines) {
        const parsed = JSON.parse(line) as { r?: Record<string, unknown>; e?: string };
        row++;
        yield parsed.r ? { row, record: parsed.r } : { row, error: parsed.e! };
      }
    },
  };
}
