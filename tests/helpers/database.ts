/**
 * A migrated database for in-process tests: a fresh PostgreSQL database in the Postgres tier (DATABASE_URL), a fresh
 * embedded one otherwise.
 */
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "@/server/db";
import { migrateDatabase } from "@/server/db/schema-engine";
import { freshDatabaseUrl, freshDataDir, TEST_SHARED_BUFFERS } from "./server";

export async function openTestDatabase(): Promise<Database> {
  return openDatabase({
    databaseUrl: await freshDatabaseUrl(),
    dataDir: freshDataDir(),
    embedded: { sharedBuffers: TEST_SHARED_BUFFERS },
    prepare: async (url) => void (await migrateDatabase(url)),
  });
}

/** A test database open for the whole file (opened before its first test, closed after its last); the getter returns it. */
export function withTestDatabase(): () => Database {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return () => database!;
}
