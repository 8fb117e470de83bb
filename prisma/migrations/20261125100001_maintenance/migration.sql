-- Scheduled maintenance (worker/activities/maintenance.ts): the task reconciler records when it
-- last found an unfinished task's workflow running, so each run looks at the tasks it has not
-- looked at for longest; the retention purge deletes old webhook deliveries by age.
-- AlterTable
ALTER TABLE "tasks" ADD COLUMN "reconciled_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");
