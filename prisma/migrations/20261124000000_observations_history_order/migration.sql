-- DropIndex
DROP INDEX "observations_asin_marketplace_observed_at_idx";

-- CreateIndex
CREATE INDEX "observations_asin_marketplace_observed_at_id_idx" ON "observations"("asin", "marketplace", "observed_at" DESC, "id" DESC);
