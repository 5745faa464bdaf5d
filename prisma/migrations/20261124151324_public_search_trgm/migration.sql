-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateIndex
CREATE INDEX "tasks_search_trgm_idx" ON "tasks" USING GIN ("name" gin_trgm_ops, "search_query" gin_trgm_ops, "condition_description" gin_trgm_ops);
