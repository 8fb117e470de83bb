-- CreateTable
CREATE TABLE "source_reads" (
    "id" BIGSERIAL NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "read_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "duration_ms" INTEGER,

    CONSTRAINT "source_reads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "source_reads_marketplace_read_at_idx" ON "source_reads"("marketplace", "read_at");

-- CreateIndex
CREATE INDEX "tasks_state_completed_at_idx" ON "tasks"("state", "completed_at");
