-- What a search matches (name, query and condition, lowered), kept with the watch: a search of the own list lowered
-- the text of every one of the owner watches for each page, which cost the database more than the rest of the page.
-- Stored, it is computed when a watch is written, and the public directory trigram index is built on it.
ALTER TABLE "tasks" ADD COLUMN "searched" TEXT GENERATED ALWAYS AS (lower("name" || ' ' || "search_query" || ' ' || "condition_description")) STORED;

DROP INDEX "tasks_public_search_trgm_idx";
CREATE INDEX "tasks_public_search_trgm_idx" ON "tasks" USING GIN ("searched" gin_trgm_ops) WITH (fastupdate = off) WHERE "is_public";

-- A column has statistics of its own: the ones kept on the expression go with it.
DROP STATISTICS "tasks_search_stats";
