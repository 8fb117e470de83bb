/**
 * Database failures that have an answer of their own instead of a bare "Internal error.": a
 * statement the database cancelled for running past `DATABASE_STATEMENT_TIMEOUT` (SQLSTATE 57014)
 * or a session it ended for idling in a transaction (25P03), a request that waited
 * `DATABASE_POOL_TIMEOUT` for a connection, and text it cannot store (22021 / 22P05, which
 * validation refuses first: core/storable-text.ts). Errors arrive raw from `pg` (hot-path SQL,
 * core/db/sql.ts) or wrapped by Prisma (`meta.driverAdapterError.cause`); both are recognised.
 */
import { DomainError } from '../errors.js';

/** What went wrong, as far as the answer is concerned. */
export type DatabaseFault = 'too_slow' | 'busy' | 'unstorable_text';

/** The message of pg-pool when no connection freed up within `connectionTimeoutMillis`. */
const POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

const FAULT_OF_SQLSTATE: Record<string, DatabaseFault> = {
  '57014': 'too_slow',
  '25P03': 'too_slow',
  '22021': 'unstorable_text',
  '22P05': 'unstorable_text',
};

/** The SQLSTATE of a pg `DatabaseError` or of a Prisma driver adapter's cause, else undefined. */
function sqlStateOf(error: object): string | undefined {
  const e = error as { code?: unknown; severity?: unknown; kind?: unknown };
  if (typeof e.code === 'string' && (typeof e.severity === 'string' || e.kind === 'postgres')) return e.code;
  return undefined;
}

/** The errors an error wraps, in the order worth looking at. */
function wrapped(error: object): unknown[] {
  const e = error as { meta?: { driverAdapterError?: unknown }; cause?: unknown; originalError?: unknown };
  return [e.meta?.driverAdapterError, e.cause, e.originalError];
}

/** The fault an error (or one it wraps, up to a few levels) stands for; undefined for any other error. */
export function databaseFaultOf(error: unknown): DatabaseFault | undefined {
  const queue: { error: unknown; depth: number }[] = [{ error, depth: 0 }];
  while (queue.length > 0) {
    const { error: current, depth } = queue.shift()!;
    if (current === null || typeof current !== 'object' || depth > 6) continue;
    const state = sqlStateOf(current);
    if (state && FAULT_OF_SQLSTATE[state]) return FAULT_OF_SQLSTATE[state];
    if (current instanceof Error && current.message === POOL_TIMEOUT_MESSAGE) return 'busy';
    for (const inner of wrapped(current)) queue.push({ error: inner, depth: depth + 1 });
  }
  return undefined;
}

/**
 * The request-level answer of a database fault (api-spec.md "Errors": 50000 is temporary, retry
 * allowed; its HTTP status stays 500), or undefined when `error` is not one. Nothing a request did
 * before it is charged: each charge is one statement (a cancelled one changes nothing) and
 * api/services/charged-tasks.ts refunds the elements already paid.
 */
export function databaseFaultError(error: unknown): DomainError | undefined {
  switch (databaseFaultOf(error)) {
    case 'too_slow':
      return new DomainError('INTERNAL_ERROR', { message: 'Internal error. The database did not answer in time; retry allowed.', cause: error });
    case 'busy':
      return new DomainError('INTERNAL_ERROR', { message: 'Internal error. No database connection was free in time; retry allowed.', cause: error });
    case 'unstorable_text':
      return new DomainError('BAD_REQUEST', { message: 'Bad Request. Text containing U+0000 or an unpaired surrogate cannot be stored.', cause: error });
    default:
      return undefined;
  }
}
