-- CreateEnum
CREATE TYPE "FindingStatus" AS ENUM ('notified', 'held', 'retracted');

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "progress" JSONB;

-- CreateTable
CREATE TABLE "findings" (
    "id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "sources" JSONB NOT NULL,
    "status" "FindingStatus" NOT NULL,
    "gate_reason" TEXT,
    "first_found_at" TIMESTAMPTZ(3) NOT NULL,
    "last_confirmed_at" TIMESTAMPTZ(3) NOT NULL,
    "confirmations" INTEGER NOT NULL DEFAULT 1,
    "first_execution_id" UUID NOT NULL,
    "last_execution_id" UUID NOT NULL,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "findings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "findings_task_id_first_found_at_idx" ON "findings"("task_id", "first_found_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "findings_task_id_key_key" ON "findings"("task_id", "key");

-- AddForeignKey
ALTER TABLE "findings" ADD CONSTRAINT "findings_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the findings of the runs recorded so far. A run that notified or held back a finding founds it (its key
-- is the key the watch last notified when it is that run, else its title in lower case as the agent fallback
-- names it, and a held run is a finding of its own). Every later met run of the watch confirms the finding founded
-- last before it.
WITH founding AS (
  SELECT e.id, e.task_id, e.created_at, e.retracted_by_execution_id, e.notification IS NOT NULL AS notified,
         CASE WHEN e.notification IS NULL THEN 'held-' || e.id::text
              WHEN t.notified_execution_id = e.id AND t.notified_finding_key IS NOT NULL THEN t.notified_finding_key
              ELSE lower(btrim(e.notification->>'title')) END AS key,
         coalesce(e.notification->>'title', left(split_part(coalesce(e.result->>'answer', ''), chr(10), 1), 120)) AS title,
         e.result->'gate'->>'reason' AS gate_reason
    FROM executions e JOIN tasks t ON t.id = e.task_id
   WHERE e.status = 'success' AND e.condition_met
     AND (e.notification IS NOT NULL OR e.result->'gate'->>'passed' = 'false')
),
runs AS (
  SELECT f.task_id, f.key, e.id, e.created_at, coalesce(e.completed_at, e.created_at) AS at,
         coalesce(e.result->>'answer', '') AS answer, coalesce(e.grounding_sources, '[]'::jsonb) AS sources
    FROM executions e
    JOIN LATERAL (SELECT f.task_id, f.key FROM founding f
                   WHERE f.task_id = e.task_id AND f.created_at <= e.created_at
                   ORDER BY f.created_at DESC LIMIT 1) f ON true
   WHERE e.status = 'success' AND e.condition_met
),
grouped AS (
  SELECT task_id, key, count(*)::int AS n, min(at) AS first_at, max(at) AS last_at FROM runs GROUP BY task_id, key
)
INSERT INTO findings (id, task_id, key, title, answer, sources, status, gate_reason, first_found_at, last_confirmed_at,
                      confirmations, first_execution_id, last_execution_id, retracted_at)
SELECT gen_random_uuid(), g.task_id, g.key, lf.title, lr.answer, lr.sources,
       (CASE WHEN NOT lf.notified THEN 'held' WHEN lf.retracted_by_execution_id IS NOT NULL THEN 'retracted'
             ELSE 'notified' END)::"FindingStatus",
       CASE WHEN NOT lf.notified THEN lf.gate_reason END,
       g.first_at, g.last_at, g.n, fr.id, lr.id,
       CASE WHEN lf.notified AND lf.retracted_by_execution_id IS NOT NULL THEN coalesce(rx.completed_at, rx.created_at) END
  FROM grouped g
  CROSS JOIN LATERAL (SELECT r.id FROM runs r WHERE r.task_id = g.task_id AND r.key = g.key
                       ORDER BY r.created_at ASC LIMIT 1) fr
  CROSS JOIN LATERAL (SELECT r.id, r.answer, r.sources FROM runs r WHERE r.task_id = g.task_id AND r.key = g.key
                       ORDER BY r.created_at DESC LIMIT 1) lr
  CROSS JOIN LATERAL (SELECT f.* FROM founding f WHERE f.task_id = g.task_id AND f.key = g.key
                       ORDER BY f.notified DESC, f.created_at DESC LIMIT 1) lf
  LEFT JOIN executions rx ON rx.id = lf.retracted_by_execution_id;
