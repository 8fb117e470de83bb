/** Writing a log entry of the Temporal SDK (its level names) through pino. */
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';

/** Writes `message` with `meta` to `log` at the pino level of the SDK's `level`. */
export function logTemporalEntry(log: Logger, level: LogLevel, message: string, meta: LogMetadata | undefined): void {
  const method = level === 'TRACE' ? 'trace' : level === 'DEBUG' ? 'debug' : level === 'INFO' ? 'info' : level === 'WARN' ? 'warn' : 'error';
  log[method](meta ?? {}, message);
}
