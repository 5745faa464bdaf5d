-- AlterTable
ALTER TABLE "notification_sends" ALTER COLUMN "task_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "email_digest" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN     "last_digest_at" TIMESTAMPTZ(3),
ADD COLUMN     "next_digest_at" TIMESTAMPTZ(3),
ADD COLUMN     "quiet_hours_end" TEXT,
ADD COLUMN     "quiet_hours_start" TEXT,
ADD COLUMN     "timezone" TEXT NOT NULL DEFAULT 'UTC';
