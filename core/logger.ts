/**
 * Structured JSON logging (pino). One root logger per process; children carry component names.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Creates the root logger at `level`. */
export function createLogger(level: string = 'info', name = 'retail-data-api'): Logger {
  return pino({ name, level });
}
