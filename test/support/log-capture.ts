/**
 * The service's real logger (core/logger.ts, redaction included) writing into memory, so a test
 * can read every line it would have shipped.
 */
import { createLogger, type Logger } from '../../core/logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as text. */
  text(): string;
  /** Every line written so far, parsed. */
  lines(): Record<string, any>[];
}

/** A logger at `level` (default `trace`: everything) whose output is kept. */
export function captureLogs(level = 'trace'): CapturedLogs {
  const written: string[] = [];
  const logger = createLogger(level, 'retail-data-api', { write: (line: string) => void written.push(line) });
  return {
    logger,
    text: () => written.join(''),
    lines: () => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>),
  };
}
