-- DropIndex
DROP INDEX "notification_sends_recipient_created_at_idx";

-- AlterTable
ALTER TABLE "follows" ADD COLUMN     "confirmation_sent_at" TIMESTAMPTZ(3),
ADD COLUMN     "mailbox" TEXT;

-- AlterTable
ALTER TABLE "notification_sends" ADD COLUMN     "recipient_key" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "clerk_updated_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "clerk_webhook_events" (
    "svix_id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clerk_webhook_events_pkey" PRIMARY KEY ("svix_id")
);

-- CreateIndex
CREATE INDEX "clerk_webhook_events_received_at_idx" ON "clerk_webhook_events"("received_at");

-- CreateIndex
CREATE INDEX "follows_task_id_mailbox_idx" ON "follows"("task_id", "mailbox");

-- CreateIndex
CREATE INDEX "notification_sends_recipient_key_created_at_idx" ON "notification_sends"("recipient_key", "created_at");

-- CreateIndex
CREATE INDEX "tasks_forked_from_task_id_idx" ON "tasks"("forked_from_task_id");

-- Mailboxes of existing addresses, as server/notify/mailbox.ts computes them: lower case, a +tag dropped (not a
-- leading plus), and for gmail.com and googlemail.com the dots dropped and one domain.
WITH a AS (
  SELECT id, lower(substring(email from '^(.*)@')) AS local, lower(substring(email from '@([^@]*)$')) AS domain
    FROM "follows" WHERE email IS NOT NULL
), b AS (
  SELECT id, domain, CASE WHEN position('+' in local) > 1 THEN split_part(local, '+', 1) ELSE local END AS local FROM a
)
UPDATE "follows" f
   SET mailbox = coalesce(CASE WHEN b.domain IN ('gmail.com', 'googlemail.com') THEN replace(b.local, '.', '') || '@gmail.com'
                               ELSE b.local || '@' || b.domain END, lower(f.email))
  FROM b WHERE b.id = f.id;

WITH a AS (
  SELECT id, lower(substring(recipient from '^(.*)@')) AS local, lower(substring(recipient from '@([^@]*)$')) AS domain
    FROM "notification_sends" WHERE notification_type = 'email'
), b AS (
  SELECT id, domain, CASE WHEN position('+' in local) > 1 THEN split_part(local, '+', 1) ELSE local END AS local FROM a
)
UPDATE "notification_sends" s
   SET recipient_key = coalesce(CASE WHEN b.domain IN ('gmail.com', 'googlemail.com') THEN replace(b.local, '.', '') || '@gmail.com'
                                     ELSE b.local || '@' || b.domain END, lower(s.recipient))
  FROM b WHERE b.id = s.id;

-- Subscribers as counted from now on (server/follows/subscribers.ts): confirmed followers by email (one per mailbox),
-- plus the users who follow signed in or hold a fork (each once, never the owner). Before, every fork added one for
-- good.
UPDATE "tasks" t SET subscriber_count = c.n
  FROM (
    SELECT t2.id,
           (SELECT count(DISTINCT f.mailbox) FROM "follows" f WHERE f.task_id = t2.id AND f.confirmed_at IS NOT NULL AND f.user_id IS NULL)
         + (SELECT count(*) FROM (
              SELECT f.user_id FROM "follows" f WHERE f.task_id = t2.id AND f.confirmed_at IS NOT NULL AND f.user_id IS NOT NULL
              UNION
              SELECT k.user_id FROM "tasks" k WHERE k.forked_from_task_id = t2.id AND k.user_id <> t2.user_id) u) AS n
      FROM "tasks" t2
  ) c
 WHERE c.id = t.id AND t.subscriber_count <> c.n;
