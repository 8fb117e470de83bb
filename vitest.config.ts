import { defineConfig } from 'vitest/config';

/**
 * Tests run in forked processes: the Temporal native worker and Chromium do not
 * belong in worker threads (sdk-typescript#876). Integration tests start real
 * services (PGlite or PostgreSQL, the Temporal dev server, Chromium) themselves.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
