/**
 * What the API benchmarks start from: a fresh database on the benchmark's PostgreSQL, migrated, with one developer
 * and an API key for them. Rows are written in SQL (not through the service), so seeding costs nothing measured.
 */
import bcrypt from "bcryptjs";
import pg from "pg";
import { generateApiKey } from "../../server/auth/api-keys.ts";
import { migrateDatabase } from "../../server/db/schema-engine.ts";

/** The owner's email channel, as the task_notifications table stores a channel (its config without the type). */
export const EMAIL_CHANNEL = { type: "email", config: JSON.stringify({ address: "bench@example.com" }) };

/** A new, empty database on the cluster at `baseUrl`; its URL. */
export async function emptyDatabase(baseUrl: string, tag: string) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `watch_bench_${tag}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function benchDatabase(baseUrl: string, tag: string) {
  const databaseUrl = await emptyDatabase(baseUrl, tag);
  await migrateDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const { key, lookupId, keyPrefix } = generateApiKey();
  const userId: string = (
    await db.query(
      `INSERT INTO users (id, clerk_user_id, email, role) VALUES (gen_random_uuid(), 'user_bench', 'bench@example.com', 'developer') RETURNING id`,
    )
  ).rows[0].id;
  await db.query(
    `INSERT INTO api_keys (id, user_id, lookup_id, key_hash, key_prefix, name) VALUES (gen_random_uuid(), $1, $2, $3, $4, 'bench')`,
    [userId, lookupId, await bcrypt.hash(key, 10), keyPrefix],
  );
  return { databaseUrl, db, key, userId };
}
