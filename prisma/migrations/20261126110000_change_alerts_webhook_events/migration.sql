-- Change alerts on monitoring subscriptions, and one stored event behind every webhook delivery.
--
-- `alert_rules`: the rules of a subscription with their hysteresis state (armed, the last known
-- value of the rule's field). `webhook_events`: every event a webhook delivers, with the id
-- receivers deduplicate by (`X-Event-Id`): postbacks and pingbacks of a task (one per task and
-- kind) and `change` events of alert rules (their body as sent). Observation ids are plain values
-- (no foreign key to `observations`, which may be partitioned by time).
-- `webhook_deliveries` gains the event, the account (the delivery log is listed per account), the
-- time of the next retry and whether the attempt belongs to a redelivery; change deliveries have
-- no task. Existing attempts are given their account and their task's event.

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN "alert_url" VARCHAR(2048);

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" SERIAL NOT NULL,
    "subscription_id" INTEGER NOT NULL,
    "position" SMALLINT NOT NULL,
    "type" VARCHAR(32) NOT NULL,
    "value" DECIMAL(18,4),
    "armed" BOOLEAN NOT NULL DEFAULT true,
    "reference" JSONB,
    "triggered_count" INTEGER NOT NULL DEFAULT 0,
    "last_triggered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" UUID NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "task_id" UUID,
    "subscription_id" INTEGER,
    "alert_rule_id" INTEGER,
    "observation_id" BIGINT,
    "url" VARCHAR(2048),
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_rules_subscription_id_position_idx" ON "alert_rules"("subscription_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_task_id_kind_key" ON "webhook_events"("task_id", "kind");

-- CreateIndex
CREATE INDEX "webhook_events_subscription_id_created_at_idx" ON "webhook_events"("subscription_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "webhook_events_subscription_id_observation_id_idx" ON "webhook_events"("subscription_id", "observation_id");

-- CreateIndex
CREATE INDEX "webhook_events_account_id_idx" ON "webhook_events"("account_id");

-- CreateIndex
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "task_id" DROP NOT NULL,
ADD COLUMN "event_id" UUID,
ADD COLUMN "account_id" INTEGER,
ADD COLUMN "next_retry_at" TIMESTAMPTZ(3),
ADD COLUMN "redelivery" BOOLEAN NOT NULL DEFAULT false;

-- Backfill: one event per task and kind already delivered, each attempt its account and event.
INSERT INTO "webhook_events" ("id", "account_id", "kind", "task_id", "url", "created_at")
SELECT gen_random_uuid(), t."account_id", d."kind", d."task_id", min(d."url"), min(d."created_at")
FROM "webhook_deliveries" d JOIN "tasks" t ON t."id" = d."task_id"
GROUP BY t."account_id", d."kind", d."task_id";

UPDATE "webhook_deliveries" d SET "account_id" = e."account_id", "event_id" = e."id"
FROM "webhook_events" e WHERE e."task_id" = d."task_id" AND e."kind" = d."kind";

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_id_idx" ON "webhook_deliveries"("account_id", "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries"("event_id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
