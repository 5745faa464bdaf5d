-- How many watches each account has, kept by the database as watches are added and deleted. A create checks the
-- account's cap against it: counting the account's watches instead read each of them (up to the cap) on every create.
-- A watch never changes owner, so inserts and deletes are all that move it.
ALTER TABLE "users" ADD COLUMN "watch_count" INTEGER NOT NULL DEFAULT 0;

-- Sets every account's count from its watches: here, and after a copy is loaded (whose counts may be older).
CREATE FUNCTION recount_watches() RETURNS void LANGUAGE sql AS $$
  UPDATE users u SET watch_count = (SELECT count(*) FROM tasks t WHERE t.user_id = u.id)
$$;

SELECT recount_watches();

-- Once per statement, with the rows it added or removed: a bulk insert or delete updates each account once.
CREATE FUNCTION count_watches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE users u SET watch_count = u.watch_count + c.n
      FROM (SELECT user_id, count(*)::int AS n FROM added GROUP BY user_id) c WHERE u.id = c.user_id;
  ELSE
    UPDATE users u SET watch_count = u.watch_count - c.n
      FROM (SELECT user_id, count(*)::int AS n FROM removed GROUP BY user_id) c WHERE u.id = c.user_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "tasks_count_added" AFTER INSERT ON "tasks" REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION count_watches();
CREATE TRIGGER "tasks_count_removed" AFTER DELETE ON "tasks" REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION count_watches();
