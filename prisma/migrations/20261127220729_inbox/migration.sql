-- CreateEnum
CREATE TYPE "DeliveryFailure" AS ENUM ('refused', 'unreachable', 'internal');

-- AlterTable
ALTER TABLE "notification_sends" ADD COLUMN     "failure" "DeliveryFailure",
ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "tasks" ADD COLUMN     "delivery_failed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "failing_since" TIMESTAMPTZ(3),
ADD COLUMN     "failure_streak" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "finding_at" TIMESTAMPTZ(3),
ADD COLUMN     "held_reason" TEXT,
ADD COLUMN     "latest_answer" TEXT,
ADD COLUMN     "latest_answer_at" TIMESTAMPTZ(3),
ADD COLUMN     "public_answer" TEXT,
ADD COLUMN     "public_answer_at" TIMESTAMPTZ(3),
ADD COLUMN     "seen_at" TIMESTAMPTZ(3);

-- The own list in attention order (server/tasks/reads.ts, ATTENTION): a failing watch (3 failed checks in a row, the
-- streak the owner is told about) or one whose latest notice failed, then findings not seen, then other findings
-- (newest first), then the rest by next check. An expression index (schema.prisma cannot declare one): a page of it is
-- an index range scan of one user, however many watches they have.
CREATE INDEX "tasks_attention_idx" ON "tasks" ("user_id",
  (CASE WHEN "failure_streak" >= 3 OR "delivery_failed" THEN 0
        WHEN "finding_at" IS NOT NULL AND ("seen_at" IS NULL OR "finding_at" > "seen_at") THEN 1
        WHEN "finding_at" IS NOT NULL THEN 2 ELSE 3 END),
  "finding_at" DESC NULLS LAST, "next_run" ASC NULLS LAST, "id");

-- Backfill from the history so far. The latest answer is the first sentence of the latest successful run: its first
-- line with text that is not a heading, without Markdown marks, up to the first sentence end, cut at 200 characters on
-- a word (the rule of firstSentence in server/tasks/results.ts, minus its abbreviations), and the public one skips runs
-- held back.
WITH runs AS (
  SELECT e.task_id, e.created_at, coalesce(e.completed_at, e.created_at) AS at,
         coalesce((e.result->'gate'->>'passed')::boolean, true) AS shown, e.result->'gate'->>'reason' AS gate_reason,
         coalesce(substring(l.line from '^.*?[.!?](?=\s|$)'), l.line) AS sentence
    FROM executions e
    CROSS JOIN LATERAL (SELECT regexp_replace(regexp_replace(e.result->>'answer', '!?\[([^]]*)\]\([^)]*\)', '\1', 'g'),
                                              '\*\*|__|~~|`', '', 'g') AS plain) p
    CROSS JOIN LATERAL (SELECT regexp_replace(p.plain, '^[ \t]*#{1,6}[ \t].*$', '', 'gn') AS body) b
    CROSS JOIN LATERAL (SELECT btrim((regexp_match(CASE WHEN b.body ~ '\S' THEN b.body ELSE p.plain END,
                                                   '^\s*(?:#{1,6}\s+|[-*+>]\s+|\d+[.)]\s+)?([^\n]+)'))[1]) AS line) l
   WHERE e.status = 'success' AND coalesce(e.result->>'answer', '') ~ '\S'
),
cut AS (
  SELECT r.*, CASE WHEN length(r.sentence) <= 200 THEN r.sentence
                   ELSE regexp_replace(left(r.sentence, 199), '\s+\S*$', '') || '…' END AS answer
    FROM runs r
),
latest AS (SELECT DISTINCT ON (task_id) * FROM cut ORDER BY task_id, created_at DESC),
shown AS (SELECT DISTINCT ON (task_id) * FROM cut WHERE shown ORDER BY task_id, created_at DESC)
UPDATE "tasks" t
   SET "latest_answer" = l.answer, "latest_answer_at" = l.at,
       "held_reason" = CASE WHEN NOT l.shown THEN coalesce(l.gate_reason, '') END,
       "public_answer" = s.answer, "public_answer_at" = s.at
  FROM latest l LEFT JOIN shown s ON s.task_id = l.task_id
 WHERE l.task_id = t.id;

-- Failed checks since the last successful one.
UPDATE "tasks" t SET "failure_streak" = f.n, "failing_since" = f.first
  FROM (SELECT e.task_id, count(*)::int AS n, min(coalesce(e.completed_at, e.created_at)) AS first
          FROM executions e
         WHERE e.status = 'failed'
           AND e.created_at > coalesce((SELECT max(s.created_at) FROM executions s
                                         WHERE s.task_id = e.task_id AND s.status = 'success'), '-infinity')
         GROUP BY e.task_id) f
 WHERE f.task_id = t.id;

-- The latest finding or retraction. Nothing found before this upgrade counts as unseen.
UPDATE "tasks" t SET "finding_at" = f.at, "seen_at" = now()
  FROM (SELECT task_id, max(greatest(first_found_at, retracted_at)) AS at FROM findings GROUP BY task_id) f
 WHERE f.task_id = t.id;

-- Send records that did not arrive, classed as server/notify/deliveries.ts classes them (deliveryFailure).
UPDATE "notification_sends" SET "failure" = (CASE
    WHEN error_message ~ '^HTTP (408|425|429|5[0-9][0-9])' THEN 'unreachable'
    WHEN error_message ~ '^HTTP [34][0-9][0-9]' OR error_message LIKE 'refused:%' OR error_message LIKE '%must use https%'
      OR error_message LIKE 'address not verified%' THEN 'refused'
    WHEN error_message LIKE 'Resend:%' OR error_message LIKE 'Email is not configured%' OR error_message LIKE '%limit reached%'
      OR error_message = 'delivery interrupted' THEN 'internal'
    ELSE 'unreachable' END)::"DeliveryFailure"
 WHERE status <> 'sent';

-- A watch whose latest notice failed on a channel.
UPDATE "tasks" t SET "delivery_failed" = true
  FROM (SELECT DISTINCT ON (s.task_id, s.notification_type) s.task_id, s.status
          FROM notification_sends s
          JOIN (SELECT DISTINCT ON (task_id) task_id, execution_id FROM notification_sends
                 WHERE audience = 'owner' AND execution_id IS NOT NULL AND task_id IS NOT NULL
                 ORDER BY task_id, created_at DESC) n ON n.task_id = s.task_id AND n.execution_id = s.execution_id
         WHERE s.audience = 'owner'
         ORDER BY s.task_id, s.notification_type, s.created_at DESC, s.attempt DESC) d
 WHERE d.task_id = t.id AND d.status <> 'sent';
