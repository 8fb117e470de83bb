-- Bulk task_post (text/csv, application/x-ndjson): a batch groups the rows of one upload, and every
-- row keeps its outcome (the task it created, or the code that refused it) for the batch's results
-- export. Purged with the tasks after RETENTION_DAYS (core/retention.ts).
-- CreateTable
CREATE TABLE "batches" (
    "id" UUID NOT NULL,
    "account_id" INTEGER NOT NULL,
    "format" VARCHAR(8) NOT NULL,
    "state" VARCHAR(16) NOT NULL DEFAULT 'processing',
    "rows" INTEGER NOT NULL DEFAULT 0,
    "accepted" INTEGER NOT NULL DEFAULT 0,
    "rejected" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_rows" (
    "batch_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "task_id" UUID,
    "asin" VARCHAR(10),
    "marketplace" VARCHAR(8),
    "status_code" INTEGER NOT NULL,
    "status_message" VARCHAR(255) NOT NULL,

    CONSTRAINT "batch_rows_pkey" PRIMARY KEY ("batch_id", "row")
);

-- CreateIndex
CREATE INDEX "batches_account_id_created_at_idx" ON "batches"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "batches_created_at_idx" ON "batches"("created_at");

-- CreateIndex
CREATE INDEX "batch_rows_task_id_idx" ON "batch_rows"("task_id");

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_rows" ADD CONSTRAINT "batch_rows_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_rows" ADD CONSTRAINT "batch_rows_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;
