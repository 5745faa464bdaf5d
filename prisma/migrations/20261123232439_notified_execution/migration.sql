-- A pointer to an execution that no longer exists (none is expected) would stop the foreign key.
UPDATE "tasks" t SET "notified_execution_id" = NULL
 WHERE "notified_execution_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "executions" e WHERE e."id" = t."notified_execution_id");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_notified_execution_id_key" ON "tasks"("notified_execution_id");

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_notified_execution_id_fkey" FOREIGN KEY ("notified_execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
