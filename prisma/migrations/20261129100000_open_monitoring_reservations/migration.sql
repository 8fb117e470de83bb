-- Monitoring runs' reservations not yet delivered (core/monitoring-reconciler.ts looks for the open
-- ones every minute): a partial index, so that look never scans the whole ledger. Prisma's schema
-- language has no partial indexes; this one lives in SQL only.
CREATE INDEX "ledger_entries_open_monitoring_runs" ON "ledger_entries" ("created_at")
  WHERE "kind" = 'monitoring' AND "observation_id" IS NULL AND "run_key" IS NOT NULL;
