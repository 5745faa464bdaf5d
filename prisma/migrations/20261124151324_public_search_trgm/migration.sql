-- pg_trgm: substring search through an index.
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- The public directory's `q` (server/tasks/reads.ts): a substring of the name, query or condition, case-insensitive,
-- through one trigram index over the three (an expression index, which schema.prisma cannot declare).
CREATE INDEX "tasks_search_trgm_idx" ON "tasks" USING GIN (lower("name" || ' ' || "search_query" || ' ' || "condition_description") gin_trgm_ops);
