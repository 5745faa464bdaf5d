-- DropIndex
DROP INDEX "notification_sends_execution_id_notification_type_attempt_key";

-- AlterTable
ALTER TABLE "notification_sends" ADD COLUMN     "event" TEXT NOT NULL DEFAULT 'task.condition_met',
ALTER COLUMN "execution_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "clerk_session_id" TEXT;

-- CreateTable
CREATE TABLE "usage_periods" (
    "user_id" UUID NOT NULL,
    "period_start" DATE NOT NULL,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_periods_pkey" PRIMARY KEY ("user_id","period_start")
);

-- CreateTable
CREATE TABLE "service_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "notification_sends_execution_id_event_notification_type_att_key" ON "notification_sends"("execution_id", "event", "notification_type", "attempt");

-- AddForeignKey
ALTER TABLE "usage_periods" ADD CONSTRAINT "usage_periods_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
