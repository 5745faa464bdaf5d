-- DropIndex
DROP INDEX "notification_sends_execution_id_event_notification_type_att_key";

-- AlterTable
ALTER TABLE "notification_sends" ADD COLUMN     "audience" TEXT NOT NULL DEFAULT 'owner',
ALTER COLUMN "user_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "follows" (
    "id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "user_id" UUID,
    "email" TEXT,
    "notifications" JSONB NOT NULL DEFAULT '[]',
    "confirmed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "follows_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "follows_task_id_confirmed_at_idx" ON "follows"("task_id", "confirmed_at");

-- CreateIndex
CREATE INDEX "follows_user_id_created_at_idx" ON "follows"("user_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "follows_task_id_user_id_key" ON "follows"("task_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "follows_task_id_email_key" ON "follows"("task_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "notification_sends_execution_id_event_notification_type_att_key" ON "notification_sends"("execution_id", "event", "notification_type", "attempt", "audience");

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
