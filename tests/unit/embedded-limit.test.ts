/**
 * Past 10,000 watches the embedded database is the bottleneck (docs/benchmarks.md, Scale): start-up says so in one line, and only
 * then.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { sql } from "@/server/db/sql";
import { hintPostgresPastEmbeddedLimit } from "@/server/lifecycle";
import { log } from "@/server/observability/log.mjs";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

const addWatches = (n: number) =>
  sql(
    `WITH u AS (INSERT INTO users (id, clerk_user_id, email) VALUES (gen_random_uuid(), 'user_' || gen_random_uuid(), 'l@example.com') RETURNING id)
     INSERT INTO tasks (id, user_id, name, search_query, condition_description) SELECT gen_random_uuid(), u.id, 'n', 'q', 'c' FROM u, generate_series(1, $1::int)`,
    [n],
  );

describe("the embedded database's limit", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is hinted past 10,000 watches, not at 10,000", { timeout: 60_000 }, async () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    await addWatches(10_000);
    await hintPostgresPastEmbeddedLimit();
    expect(warn).not.toHaveBeenCalled();

    await addWatches(1);
    await hintPostgresPastEmbeddedLimit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      /^ℹ 10001 watches on the embedded database: past 10,000, move to a PostgreSQL server with `npm run db:move`/,
    );
  });
});
