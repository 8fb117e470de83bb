import { defineConfig } from 'vitest/config';

/** Test files that run whole multi-process topologies: they run alone, after everything else. */
const ALONE = ['test/integration/multi-process.postgres.test.ts'];

/**
 * Tests run in forked processes: the Temporal native worker and Chromium do not
 * belong in worker threads (sdk-typescript#876). Integration tests start real
 * services (PGlite or PostgreSQL, the Temporal dev server, Chromium) themselves.
 * The multi-process test (2 API processes, 2 workers, 2 Chromiums) saturates a
 * 2-core machine by itself, so it runs after the rest (`sequence.groupOrder`),
 * where it cannot starve the timing-sensitive tests (live budget, webhook retries).
 */
export default defineConfig({
  test: {
    // The default report, closed by the list of skipped tests and why (outside CI only; CI fails them).
    reporters: ['default', './test/support/skip-summary-reporter.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ALONE, fileParallelism: true, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'topology', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
