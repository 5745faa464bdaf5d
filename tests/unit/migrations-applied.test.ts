/**
 * The start-up's shortcut past the schema engine: taken only when Prisma's table records every migration as applied,
 * as written, and nothing else; every other state goes to the engine.
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { migrationsApplied } from "@/server/db/schema-engine";
import { withTestDatabase } from "../helpers/database";

const database = withTestDatabase();

/** `change` made to the migrated test database, then undone: what the shortcut says in between. */
async function appliedAfter(change: string) {
  const client: pg.PoolClient = await database().pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(change);
    return await migrationsApplied(client);
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}
const LATEST = "(SELECT max(migration_name) FROM _prisma_migrations)";

describe("migrations applied", () => {
  it("holds for a database the engine migrated", async () => {
    expect(await migrationsApplied(database().pool)).toBe(true);
  });

  it("does not hold for a pending, unfinished, edited, unknown or rolled-back migration, nor without the table", async () => {
    expect(await appliedAfter(`DELETE FROM _prisma_migrations WHERE migration_name = ${LATEST}`)).toBe(false);
    expect(
      await appliedAfter(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = ${LATEST}`),
    ).toBe(false);
    expect(
      await appliedAfter(`UPDATE _prisma_migrations SET checksum = 'edited' WHERE migration_name = ${LATEST}`),
    ).toBe(false);
    expect(
      await appliedAfter(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ('unknown', 'x', '29991231000000_from_a_newer_version', now(), 1)`,
      ),
    ).toBe(false);
    expect(
      await appliedAfter(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = ${LATEST}`),
    ).toBe(false);
    expect(await appliedAfter("ALTER TABLE _prisma_migrations RENAME TO old_migrations")).toBe(false);
  });
});
