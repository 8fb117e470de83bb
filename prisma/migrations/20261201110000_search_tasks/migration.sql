-- Search tasks live in `tasks` beside product tasks (search-page-contract.md "API"): the same
-- lifecycle, charging, refunds, reconciler, webhooks and tasks_ready. `kind` tells them apart; a
-- search task has no ASIN, carries its keyword (as posted: trimmed, whitespace collapsed) and the
-- number of results pages to read, and its result is the SearchResults observations read, one per
-- page, in page order (`search_observation_ids`: ids of `search_observations`, no foreign key, as
-- for observations, so retention may purge either side).
ALTER TABLE "tasks"
  ADD COLUMN "kind" VARCHAR(8) NOT NULL DEFAULT 'product',
  ADD COLUMN "keyword" VARCHAR(200),
  ADD COLUMN "pages" SMALLINT,
  ADD COLUMN "search_observation_ids" BIGINT[] NOT NULL DEFAULT '{}',
  ALTER COLUMN "asin" DROP NOT NULL;

ALTER TABLE "tasks" ADD CONSTRAINT "tasks_kind_shape" CHECK (
  ("kind" = 'product' AND "asin" IS NOT NULL)
  OR ("kind" = 'search' AND "keyword" IS NOT NULL AND "pages" BETWEEN 1 AND 5)
);

-- Source reads of search results pages are counted apart from product page reads
-- (GET /v1/appendix/status per marketplace, search-page-contract.md "API").
ALTER TABLE "source_reads" ADD COLUMN "page_type" VARCHAR(8) NOT NULL DEFAULT 'product';
