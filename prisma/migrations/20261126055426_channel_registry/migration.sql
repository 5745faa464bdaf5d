-- Channels from one registry: five new channel types, and a watch channel stored as one config document (the shape
-- a signed-in follower already has) instead of a column per field of email and webhook.

ALTER TYPE "NotificationType" ADD VALUE 'slack';
ALTER TYPE "NotificationType" ADD VALUE 'discord';
ALTER TYPE "NotificationType" ADD VALUE 'teams';
ALTER TYPE "NotificationType" ADD VALUE 'telegram';
ALTER TYPE "NotificationType" ADD VALUE 'ntfy';

ALTER TABLE "task_notifications" ADD COLUMN "config" JSONB NOT NULL DEFAULT '{}';

UPDATE "task_notifications" SET "config" = CASE
  WHEN "type" = 'email' THEN jsonb_build_object('address', coalesce("address", ''))
  ELSE jsonb_build_object('url', coalesce("url", ''), 'method', coalesce("method", 'POST'), 'headers', coalesce("headers", '{}'::jsonb))
END;

ALTER TABLE "task_notifications" DROP COLUMN "address",
DROP COLUMN "headers",
DROP COLUMN "method",
DROP COLUMN "url";
