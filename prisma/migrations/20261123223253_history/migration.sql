-- CreateTable
CREATE TABLE "task_changes" (
    "id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "changes" JSONB NOT NULL,

    CONSTRAINT "task_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "task_changes_task_id_at_idx" ON "task_changes"("task_id", "at" DESC);

-- AddForeignKey
ALTER TABLE "task_changes" ADD CONSTRAINT "task_changes_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
