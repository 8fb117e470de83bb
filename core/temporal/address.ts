/**
 * Finding the running service's Temporal frontend from a one-off command (the admin CLI): the
 * configured `TEMPORAL_ADDRESS`, else the address the embedded dev server of a running `npm start`
 * recorded in DATA_DIR (it picks a free port when 7233 is taken).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

/** The file in DATA_DIR holding the embedded dev server's `host:port` while it runs. */
export function devServerAddressFile(dataDir: string): string {
  return path.join(dataDir, 'temporal.address');
}

/** `TEMPORAL_ADDRESS`, else the recorded address of a running embedded dev server, else null. */
export function temporalAddressOf(config: Config): string | null {
  if (config.TEMPORAL_ADDRESS) return config.TEMPORAL_ADDRESS;
  try {
    return fs.readFileSync(devServerAddressFile(config.DATA_DIR), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
