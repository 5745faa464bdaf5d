-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "notices" JSONB,
ADD COLUMN     "retracted_by_execution_id" UUID;

-- AlterTable
ALTER TABLE "tasks" ADD COLUMN     "failure_notified" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "min_confidence" DOUBLE PRECISION NOT NULL DEFAULT 0.6,
ADD COLUMN     "min_sources" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "notified_execution_id" UUID,
ADD COLUMN     "notified_finding_key" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "previous_webhook_secret" TEXT,
ADD COLUMN     "previous_webhook_secret_expires_at" TIMESTAMPTZ(3);

-- The last notified finding moves out of the agent's own state into the watch.
UPDATE "tasks" SET "notified_finding_key" = "last_known_state"->>'_last_notified_finding'
 WHERE jsonb_typeof("last_known_state") = 'object' AND "last_known_state" ? '_last_notified_finding';
UPDATE "tasks" t SET "notified_execution_id" = (
  SELECT e."id" FROM "executions" e WHERE e."task_id" = t."id" AND e."notification" IS NOT NULL ORDER BY e."created_at" DESC LIMIT 1);
