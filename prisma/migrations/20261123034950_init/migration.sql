-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "TaskState" AS ENUM ('active', 'paused', 'completed');

-- CreateEnum
CREATE TYPE "ExecutionStatus" AS ENUM ('pending', 'running', 'success', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "NotificationType" AS ENUM ('email', 'webhook');

-- CreateEnum
CREATE TYPE "SendStatus" AS ENUM ('sent', 'failed', 'skipped');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "clerk_user_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "first_name" TEXT NOT NULL DEFAULT '',
    "username" TEXT,
    "role" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "has_seen_welcome" BOOLEAN NOT NULL DEFAULT false,
    "webhook_secret" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "lookup_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "search_query" TEXT NOT NULL,
    "condition_description" TEXT NOT NULL,
    "state" "TaskState" NOT NULL DEFAULT 'active',
    "next_run" TIMESTAMPTZ(3),
    "is_public" BOOLEAN NOT NULL DEFAULT false,
    "view_count" INTEGER NOT NULL DEFAULT 0,
    "subscriber_count" INTEGER NOT NULL DEFAULT 0,
    "forked_from_task_id" UUID,
    "last_known_state" JSONB,
    "last_execution_id" UUID,
    "state_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_notifications" (
    "id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "type" "NotificationType" NOT NULL,
    "address" TEXT,
    "url" TEXT,
    "method" TEXT,
    "headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executions" (
    "id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "status" "ExecutionStatus" NOT NULL DEFAULT 'pending',
    "condition_met" BOOLEAN,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "result" JSONB,
    "error_message" TEXT,
    "notification" JSONB,
    "grounding_sources" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_sends" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "execution_id" UUID NOT NULL,
    "recipient" TEXT NOT NULL,
    "notification_type" "NotificationType" NOT NULL,
    "status" "SendStatus" NOT NULL,
    "error_message" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_sends_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_verifications" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "waitlist_entries" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "waitlist_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_clerk_user_id_key" ON "users"("clerk_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_lookup_id_key" ON "api_keys"("lookup_id");

-- CreateIndex
CREATE INDEX "api_keys_user_id_is_active_idx" ON "api_keys"("user_id", "is_active");

-- CreateIndex
CREATE INDEX "tasks_user_id_created_at_idx" ON "tasks"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "tasks_user_id_state_created_at_idx" ON "tasks"("user_id", "state", "created_at");

-- CreateIndex
CREATE INDEX "tasks_state_next_run_idx" ON "tasks"("state", "next_run");

-- CreateIndex
CREATE INDEX "tasks_is_public_created_at_idx" ON "tasks"("is_public", "created_at");

-- CreateIndex
CREATE INDEX "tasks_is_public_subscriber_count_view_count_idx" ON "tasks"("is_public", "subscriber_count", "view_count");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_last_execution_id_key" ON "tasks"("last_execution_id");

-- CreateIndex
CREATE UNIQUE INDEX "task_notifications_task_id_type_key" ON "task_notifications"("task_id", "type");

-- CreateIndex
CREATE INDEX "executions_task_id_created_at_idx" ON "executions"("task_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "executions_task_id_status_idx" ON "executions"("task_id", "status");

-- CreateIndex
CREATE INDEX "executions_task_id_condition_met_created_at_idx" ON "executions"("task_id", "condition_met", "created_at" DESC);

-- CreateIndex
CREATE INDEX "executions_status_started_at_idx" ON "executions"("status", "started_at");

-- CreateIndex
CREATE INDEX "notification_sends_user_id_created_at_idx" ON "notification_sends"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notification_sends_user_id_notification_type_created_at_idx" ON "notification_sends"("user_id", "notification_type", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notification_sends_user_id_task_id_created_at_idx" ON "notification_sends"("user_id", "task_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notification_sends_recipient_created_at_idx" ON "notification_sends"("recipient", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "notification_sends_execution_id_notification_type_attempt_key" ON "notification_sends"("execution_id", "notification_type", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "email_verifications_token_key" ON "email_verifications"("token");

-- CreateIndex
CREATE UNIQUE INDEX "email_verifications_user_id_email_key" ON "email_verifications"("user_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "waitlist_entries_email_key" ON "waitlist_entries"("email");

-- CreateIndex
CREATE UNIQUE INDEX "waitlist_entries_position_key" ON "waitlist_entries"("position");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_last_execution_id_fkey" FOREIGN KEY ("last_execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_notifications" ADD CONSTRAINT "task_notifications_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_sends" ADD CONSTRAINT "notification_sends_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
