-- CreateTable
CREATE TABLE "accounts" (
    "id" SERIAL NOT NULL,
    "login" VARCHAR(64) NOT NULL,
    "email" VARCHAR(254) NOT NULL,
    "balance" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "plan" VARCHAR(32) NOT NULL DEFAULT 'standard',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "webhook_secret" VARCHAR(128) NOT NULL,
    "requests_per_minute" INTEGER,
    "tasks_per_minute" INTEGER,
    "subscriptions_paused" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id"),
    -- The balance never goes below zero, whatever the concurrency (api-spec.md "Limits", charging rules).
    CONSTRAINT "accounts_balance_non_negative" CHECK ("balance" >= 0)
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "prefix" VARCHAR(16) NOT NULL,
    "last4" CHAR(4) NOT NULL,
    "label" VARCHAR(100),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "amount" DECIMAL(18,6) NOT NULL,
    "balance_after" DECIMAL(18,6) NOT NULL,
    "task_id" UUID,
    "subscription_id" INTEGER,
    "note" VARCHAR(255),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "account_id" INTEGER NOT NULL,
    "endpoint" VARCHAR(32) NOT NULL,
    "asin" CHAR(10) NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "priority" SMALLINT NOT NULL DEFAULT 1,
    "tag" VARCHAR(255),
    "postback_url" VARCHAR(2048),
    "pingback_url" VARCHAR(2048),
    "data" JSONB NOT NULL,
    "state" VARCHAR(16) NOT NULL DEFAULT 'queued',
    "status_code" INTEGER NOT NULL DEFAULT 20100,
    "status_message" VARCHAR(255) NOT NULL DEFAULT 'Task Created.',
    "cost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "observation_id" BIGINT,
    "reused" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "collected_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "observations" (
    "id" BIGSERIAL NOT NULL,
    "asin" CHAR(10) NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "url" VARCHAR(512) NOT NULL,
    "title" TEXT,
    "byline" JSONB NOT NULL DEFAULT '[]',
    "variant" TEXT,
    "variants" JSONB NOT NULL DEFAULT '[]',
    "price_amount" DECIMAL(18,4),
    "price_currency" CHAR(3),
    "bsr" JSONB,
    "bsr_rank" INTEGER,
    "rating" DECIMAL(3,2),
    "ratings_count" INTEGER,
    "image_url" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "parser_version" VARCHAR(32) NOT NULL,
    "subscription_id" INTEGER,

    CONSTRAINT "observations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriptions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "asin" CHAR(10) NOT NULL,
    "marketplace" VARCHAR(8) NOT NULL,
    "frequency" VARCHAR(16) NOT NULL,
    "tag" VARCHAR(255),
    "external_user_id" VARCHAR(255),
    "status" VARCHAR(16) NOT NULL DEFAULT 'active',
    "latest_observation_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_requests" (
    "id" SERIAL NOT NULL,
    "email" VARCHAR(254) NOT NULL,
    "name" VARCHAR(200),
    "company" VARCHAR(200),
    "use_case" VARCHAR(2000),
    "ip" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "account_id" INTEGER,
    "credentials_token_hash" CHAR(64),
    "credentials_payload" TEXT,
    "credentials_read_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "approved_at" TIMESTAMPTZ(3),

    CONSTRAINT "access_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "task_id" UUID NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "attempt" SMALLINT NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "http_status" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_counters" (
    "account_id" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "endpoint" VARCHAR(64) NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "tasks" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(18,6) NOT NULL DEFAULT 0,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("account_id","day","endpoint")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_login_key" ON "accounts"("login");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_revoked_at_idx" ON "api_keys"("account_id", "revoked_at");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "ledger_entries_task_id_idx" ON "ledger_entries"("task_id");

-- CreateIndex
CREATE INDEX "tasks_account_id_collected_at_completed_at_idx" ON "tasks"("account_id", "collected_at", "completed_at");

-- CreateIndex
CREATE INDEX "tasks_state_created_at_idx" ON "tasks"("state", "created_at");

-- CreateIndex
CREATE INDEX "tasks_expires_at_idx" ON "tasks"("expires_at");

-- CreateIndex
CREATE INDEX "observations_asin_marketplace_observed_at_idx" ON "observations"("asin", "marketplace", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "observations_subscription_id_observed_at_idx" ON "observations"("subscription_id", "observed_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "subscriptions_account_id_asin_marketplace_key" ON "subscriptions"("account_id", "asin", "marketplace");

-- CreateIndex
CREATE INDEX "subscriptions_account_id_tag_idx" ON "subscriptions"("account_id", "tag");

-- CreateIndex
CREATE UNIQUE INDEX "access_requests_credentials_token_hash_key" ON "access_requests"("credentials_token_hash");

-- CreateIndex
CREATE INDEX "access_requests_ip_created_at_idx" ON "access_requests"("ip", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_task_id_created_at_idx" ON "webhook_deliveries"("task_id", "created_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_observation_id_fkey" FOREIGN KEY ("observation_id") REFERENCES "observations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "observations" ADD CONSTRAINT "observations_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
