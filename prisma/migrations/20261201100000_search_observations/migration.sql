-- Search result pages (search-page-contract.md "SearchResults"), stored so that a repeated read of
-- an unchanged result list costs one narrow row:
-- - `search_items`: one row per distinct item content (every item field except its place in the
--   list: position, organic_position, sponsored), keyed by the SHA-256 of its JSON text
--   (core/search-observations.ts computes it), shared by every list, keyword and page it appears in;
-- - `search_observations`: one row per page read, the ordered list as three parallel arrays: the
--   item contents' ids, the ASINs (rank history reads them without touching `search_items`) and
--   the sponsored flags. Positions and organic positions follow from the order. An ASIN is kept as
--   its value in base 36 (10 characters [0-9A-Z] < 36^10 < 2^53), 8 bytes where a text element
--   takes 16; a card whose data-asin is not of that form (no ASIN the API accepts) has -1 there.
-- `keyword_key` (lowercased, white space collapsed) is the identity of a keyword for reuse, latest
-- and rank history; `keyword` keeps the text as posted.

-- CreateTable
CREATE TABLE "search_items" (
    "id" BIGSERIAL NOT NULL,
    -- SHA-256 of the item's JSON text (core/search-observations.ts `itemDoc`).
    "hash" BYTEA NOT NULL,
    "doc" JSONB NOT NULL,

    CONSTRAINT "search_items_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "search_items_hash_key" ON "search_items"("hash");

-- CreateTable
CREATE TABLE "search_observations" (
    "id" BIGSERIAL NOT NULL,
    "keyword" TEXT NOT NULL,
    "keyword_key" TEXT NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "page" SMALLINT NOT NULL,
    "url" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    -- `ok`, `no_results`.
    "status" VARCHAR(16) NOT NULL,
    "total_results" BIGINT,
    "results_text" TEXT,
    "parser_version" TEXT NOT NULL,
    "quality" JSONB NOT NULL,
    -- The list in page order: search_items ids, ASINs (base 36) and sponsored flags, index for index.
    "item_ids" BIGINT[] NOT NULL,
    "item_asins" BIGINT[] NOT NULL,
    "item_sponsored" BOOLEAN[] NOT NULL,
    -- The subscription whose delivery produced this observation, if any.
    "subscription_id" INTEGER,

    CONSTRAINT "search_observations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "search_observations_lists" CHECK (
        cardinality("item_ids") = cardinality("item_asins") AND cardinality("item_ids") = cardinality("item_sponsored")
        AND array_position("item_ids", NULL) IS NULL AND array_position("item_asins", NULL) IS NULL
        AND array_position("item_sponsored", NULL) IS NULL)
);

-- latest / reuse: the newest read of a keyword's page.
CREATE INDEX "search_observations_latest_idx" ON "search_observations"("keyword_key", "marketplace", "page", "observed_at" DESC);
-- rank history: a keyword's reads (every page) within a time range.
CREATE INDEX "search_observations_history_idx" ON "search_observations"("keyword_key", "marketplace", "observed_at");
-- retention: rows are appended in time order, so a BRIN index finds the old ones at almost no cost.
CREATE INDEX "search_observations_observed_at_brin" ON "search_observations" USING BRIN ("observed_at");

ALTER TABLE "search_observations" ADD CONSTRAINT "search_observations_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
-- A deleted subscription sets its deliveries' subscription_id to null: found through this index.
CREATE INDEX "search_observations_subscription_id_idx" ON "search_observations"("subscription_id") WHERE "subscription_id" IS NOT NULL;
