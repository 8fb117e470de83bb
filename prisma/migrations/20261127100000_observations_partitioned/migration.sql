-- History at scale: `observations` keeps per read only what moves (status, offer, stock, ranks,
-- rating, quality, references) as typed columns, and is partitioned by month of `observed_at`
-- (partitions are created ahead by the service, core/observation-partitions.ts; the DEFAULT
-- partition catches anything outside them). The slow-moving content of a page (url, title,
-- byline, variants, details, images, description, bullets, categories, BSR category names) is
-- stored once per distinct version in `product_contents`; repeated short texts of a read
-- (parser version, availability and delivery messages, seller names, coupon text, currencies of
-- the secondary prices, the quality's missing list) once per distinct combination in
-- `observation_texts`. Both are keyed by the SHA-256 of their jsonb text, computed by the database.
--
-- The rows of the old layout stay in `observations_legacy` until the resumable backfill
-- (core/db/observation-backfill.ts, run by the migrator after the SQL migrations) has copied them
-- in batches, keeping their ids, and then drops it; `observation_backfill` holds its progress.
-- A partitioned table's unique keys include the partition key, so the primary key is
-- (id, observed_at) and the foreign key from `tasks.observation_id` is dropped (ids stay unique:
-- one sequence).

-- The old table, kept aside for the backfill.
ALTER TABLE "observations" RENAME TO "observations_legacy";
ALTER TABLE "observations_legacy" RENAME CONSTRAINT "observations_pkey" TO "observations_legacy_pkey";
ALTER TABLE "observations_legacy" DROP CONSTRAINT "observations_subscription_id_fkey";
ALTER TABLE "observations_legacy" ALTER COLUMN "id" DROP DEFAULT;
DROP INDEX "observations_asin_marketplace_observed_at_id_idx";
DROP INDEX "observations_subscription_id_observed_at_idx";
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_observation_id_fkey";

-- CreateTable
CREATE TABLE "product_contents" (
    "id" BIGSERIAL NOT NULL,
    "asin" CHAR(10) NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    -- SHA-256 of `doc::text`.
    "hash" BYTEA NOT NULL,
    "doc" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "product_contents_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "product_contents_asin_marketplace_hash_key" ON "product_contents"("asin", "marketplace", "hash");

-- CreateTable
CREATE TABLE "observation_texts" (
    "id" SERIAL NOT NULL,
    -- SHA-256 of `doc::text`.
    "hash" BYTEA NOT NULL,
    "doc" JSONB NOT NULL,

    CONSTRAINT "observation_texts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "observation_texts_hash_key" ON "observation_texts"("hash");

-- CreateTable
CREATE TABLE "observations" (
    "id" BIGINT NOT NULL DEFAULT nextval('observations_id_seq'),
    "asin" CHAR(10) NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "content_id" BIGINT NOT NULL,
    "texts_id" INTEGER NOT NULL,
    "subscription_id" INTEGER,
    "price_amount" DECIMAL(18,4),
    "price_currency" CHAR(3),
    "bsr_rank" INTEGER,
    -- Ranks of the BSR subcategories, in page order (their names are content).
    "bsr_ranks" INTEGER[],
    "rating" DECIMAL(3,2),
    "ratings_count" INTEGER,
    "list_price" DECIMAL(18,4),
    "subscribe_save_price" DECIMAL(18,4),
    "coupon_percent" DECIMAL(9,4),
    "coupon_amount" DECIMAL(18,4),
    "prime" BOOLEAN,
    "sold_by_amazon" BOOLEAN,
    "fulfilled_by_amazon" BOOLEAN,
    "availability_quantity" INTEGER,
    "histogram_5" SMALLINT,
    "histogram_4" SMALLINT,
    "histogram_3" SMALLINT,
    "histogram_2" SMALLINT,
    "histogram_1" SMALLINT,
    "quality_version" SMALLINT NOT NULL,
    "fields_read" SMALLINT,
    "fields_applicable" SMALLINT,

    CONSTRAINT "observations_pkey" PRIMARY KEY ("id", "observed_at")
) PARTITION BY RANGE ("observed_at");
ALTER SEQUENCE "observations_id_seq" OWNED BY "observations"."id";

CREATE TABLE "observations_default" PARTITION OF "observations" DEFAULT;

-- history: by asin + marketplace, newest first, ties newest id first.
CREATE INDEX "observations_asin_marketplace_observed_at_id_idx" ON "observations"("asin", "marketplace", "observed_at" DESC, "id" DESC);
CREATE INDEX "observations_subscription_id_observed_at_idx" ON "observations"("subscription_id", "observed_at" DESC);

ALTER TABLE "observations" ADD CONSTRAINT "observations_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "observations" ADD CONSTRAINT "observations_content_id_fkey" FOREIGN KEY ("content_id") REFERENCES "product_contents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "observations" ADD CONSTRAINT "observations_texts_id_fkey" FOREIGN KEY ("texts_id") REFERENCES "observation_texts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Monthly partitions for the months of the old rows and the next three (the service keeps
-- creating them ahead).
DO $$
DECLARE
  m date := date_trunc('month', LEAST(COALESCE((SELECT min(observed_at) FROM observations_legacy), now()), now()) AT TIME ZONE 'UTC')::date;
  last date := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months')::date;
BEGIN
  WHILE m <= last LOOP
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)',
      'observations_' || to_char(m, 'YYYY_MM'), m::text || ' 00:00:00+00', (m + interval '1 month')::date::text || ' 00:00:00+00');
    m := (m + interval '1 month')::date;
  END LOOP;
END $$;

-- Partition maintenance, called by the service (core/observation-partitions.ts): the monthly
-- partitions of this month and the next `months_ahead`, and of every month that has rows in the
-- DEFAULT partition (those rows are moved into it); returns the partitions created.
CREATE FUNCTION observation_partitions_ensure(months_ahead INTEGER) RETURNS SETOF TEXT LANGUAGE plpgsql AS $$
DECLARE
  m DATE;
  lo TEXT;
  hi TEXT;
  part TEXT;
BEGIN
  FOR m IN
    SELECT generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'), date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => months_ahead), interval '1 month')::date
    UNION
    SELECT DISTINCT date_trunc('month', observed_at AT TIME ZONE 'UTC')::date FROM observations_default
    ORDER BY 1
  LOOP
    part := 'observations_' || to_char(m, 'YYYY_MM');
    CONTINUE WHEN to_regclass(part) IS NOT NULL;
    lo := m::text || ' 00:00:00+00';
    hi := (m + interval '1 month')::date::text || ' 00:00:00+00';
    IF EXISTS (SELECT 1 FROM observations_default WHERE observed_at >= lo::timestamptz AND observed_at < hi::timestamptz) THEN
      EXECUTE format('CREATE TABLE %I (LIKE observations INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
      EXECUTE format('WITH moved AS (DELETE FROM observations_default WHERE observed_at >= %L AND observed_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved', lo, hi, part);
      EXECUTE format('ALTER TABLE observations ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    ELSE
      EXECUTE format('CREATE TABLE %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    END IF;
    RETURN NEXT part;
  END LOOP;
END $$;

-- Drops the monthly partitions wholly before `cutoff` (OBSERVATION_RETENTION_DAYS); returns them.
CREATE FUNCTION observation_partitions_drop_before(cutoff TIMESTAMPTZ) RETURNS SETOF TEXT LANGUAGE plpgsql AS $$
DECLARE
  part TEXT;
BEGIN
  FOR part IN
    SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'observations'::regclass AND c.relname ~ '^observations_[0-9]{4}_[0-9]{2}$'
      AND (to_date(substring(c.relname from 14), 'YYYY_MM') + interval '1 month')::timestamp AT TIME ZONE 'UTC' <= cutoff
    ORDER BY 1
  LOOP
    EXECUTE format('DROP TABLE %I', part);
    RETURN NEXT part;
  END LOOP;
END $$;

-- The backfill's progress: the highest legacy id copied.
CREATE TABLE "observation_backfill" (
    "id" SMALLINT NOT NULL DEFAULT 1,
    "last_id" BIGINT NOT NULL DEFAULT 0,
    "copied" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "observation_backfill_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "observation_backfill_one_row" CHECK ("id" = 1)
);
INSERT INTO "observation_backfill" DEFAULT VALUES;
