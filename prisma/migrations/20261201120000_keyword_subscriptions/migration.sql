-- Keyword monitoring (search-page-contract.md "API", Monitoring): a subscription is either a
-- product (`kind` 'product': one ASIN) or a keyword (`kind` 'search': the results pages 1..`pages`
-- of `keyword`, with up to 50 tracked ASINs whose ranks its alert rules judge).
-- - `keyword` is kept as posted (trimmed, inner white space collapsed, case kept); `keyword_key`
--   (lowercased) is its identity, as in `search_observations`.
-- - One subscription per account and product (asin, marketplace) or keyword (keyword_key,
--   marketplace): the former unique index becomes two partial ones.
-- - `latest_search_observation_ids`: the search observations of the last delivered run, in page order.
-- - `alert_rules.asin`: the tracked ASIN a rank rule judges (null for product rules).
-- - `ledger_entries.search_observation_ids`: the pages a keyword run's reservation paid for.
-- - `webhook_events.search_observation_id`: the page 1 observation of the run whose read fired a
--   rank rule (plain value, no foreign key, as `observation_id`).

-- AlterTable
ALTER TABLE "subscriptions"
  ADD COLUMN "kind" VARCHAR(8) NOT NULL DEFAULT 'product',
  ADD COLUMN "keyword" VARCHAR(200),
  ADD COLUMN "keyword_key" TEXT,
  ADD COLUMN "pages" SMALLINT,
  ADD COLUMN "track_asins" TEXT[] NOT NULL DEFAULT '{}',
  ADD COLUMN "latest_search_observation_ids" BIGINT[] NOT NULL DEFAULT '{}',
  ALTER COLUMN "asin" DROP NOT NULL;

ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_kind_shape" CHECK (
  ("kind" = 'product' AND "asin" IS NOT NULL AND "keyword" IS NULL)
  OR ("kind" = 'search' AND "asin" IS NULL AND "keyword" IS NOT NULL AND "keyword_key" IS NOT NULL
      AND "pages" BETWEEN 1 AND 5 AND cardinality("track_asins") <= 50)
);

-- One subscription per account and product, and per account and keyword.
DROP INDEX "subscriptions_account_id_asin_marketplace_key";
CREATE UNIQUE INDEX "subscriptions_account_product_key" ON "subscriptions"("account_id", "asin", "marketplace") WHERE "kind" = 'product';
CREATE UNIQUE INDEX "subscriptions_account_keyword_key" ON "subscriptions"("account_id", "keyword_key", "marketplace") WHERE "kind" = 'search';

-- AlterTable
ALTER TABLE "alert_rules" ADD COLUMN "asin" CHAR(10);

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN "search_observation_ids" BIGINT[] NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN "search_observation_id" BIGINT;
CREATE INDEX "webhook_events_subscription_id_search_observation_id_idx" ON "webhook_events"("subscription_id", "search_observation_id") WHERE "search_observation_id" IS NOT NULL;
