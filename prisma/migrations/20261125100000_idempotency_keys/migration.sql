-- The Idempotency-Key header of task_post and live (api/middleware/idempotency.ts): one row per
-- account and key, reserved before the request runs (the primary key makes a concurrent duplicate
-- wait for it, then find it), holding the first response for 24 hours.
-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" INTEGER NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "request_hash" CHAR(64) NOT NULL,
    "http_status" INTEGER,
    "response" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id", "key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
