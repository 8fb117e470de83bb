-- A monitoring run reserves its charge before the page is read: the charge's ledger entry carries
-- the run's key (one reservation per run, whatever the activity retries) and, once read, the
-- observation it paid for; a refund of the run carries the key with the suffix `:refund`.

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN     "observation_id" BIGINT,
ADD COLUMN     "run_key" VARCHAR(96);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_run_key_key" ON "ledger_entries"("run_key");
