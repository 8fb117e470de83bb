-- rate-limiter-flexible's PostgreSQL store (core/rate-limits.ts) keeps each window's end as epoch
-- milliseconds: one atomic upsert per window and request instead of RateLimiterPrisma's delete +
-- upsert.
-- AlterTable
ALTER TABLE "rate_limits" ALTER COLUMN "expire" TYPE BIGINT USING (floor(extract(epoch FROM "expire") * 1000))::BIGINT;

-- Every authenticated request writes its account's counter rows. Unlogged: those writes produce no
-- WAL and their commits wait for no WAL flush. After a crash (not a clean restart) the table starts
-- empty, which gives each account at most one fresh minute of its limits; counters are not copied
-- to standbys either.
ALTER TABLE "rate_limits" SET UNLOGGED;
