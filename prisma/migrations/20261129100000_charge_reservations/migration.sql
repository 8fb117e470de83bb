-- One model of a charge that is taken before its result exists (a reservation): a `monitoring`
-- entry of a monitoring run, or a `charge` entry of a synchronous read keyed `r:<task id>`
-- (GraphQL analytics, history export). Each is settled once: `kept` (the result was delivered) or
-- `refunded` (its `refund` entry, keyed `<run key>:refund`, gave the money back).
ALTER TABLE "ledger_entries" ADD COLUMN "settled_at" TIMESTAMPTZ(3), ADD COLUMN "settlement" VARCHAR(16);

UPDATE "ledger_entries" l SET "settlement" = 'kept', "settled_at" = l."created_at"
  WHERE l."kind" = 'monitoring' AND l."run_key" IS NOT NULL AND l."observation_id" IS NOT NULL;
UPDATE "ledger_entries" l SET "settlement" = 'refunded', "settled_at" = r."created_at"
  FROM "ledger_entries" r
  WHERE l."kind" = 'monitoring' AND l."run_key" IS NOT NULL AND l."settlement" IS NULL AND r."run_key" = l."run_key" || ':refund';

-- The reconciler looks for open reservations every minute: a partial index, so that look never
-- scans the whole ledger (Prisma's schema language has no partial indexes; this one is SQL only).
CREATE INDEX "ledger_entries_open_reservations" ON "ledger_entries" ("created_at")
  WHERE "run_key" IS NOT NULL AND "settlement" IS NULL AND "kind" <> 'refund';
