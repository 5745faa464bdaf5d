/**
 * Plain SQL, and when to use it. Prisma is the default: a write or read of a model's rows goes through its client.
 * Plain SQL is for two kinds of query, and only those:
 * - hot paths, where Prisma's query interpreter, result mapping and transaction handling cost several times the
 *   queries themselves (docs/benchmarks.md): the reads on every request's path (the caller's API key with its owner,
 *   watches for display: `../tasks/reads`), the two transactions of every watch run (claim and record:
 *   `../runs/steps`), usage accounting and view counts, which every run or page view touches;
 * - what Prisma cannot say: row and advisory locks (`FOR UPDATE`, `lockKey`), aggregates across tables (usage sums,
 *   subscriber and audience counts), `ANY($1)` over arrays, the durable engine's own tables.
 * Either way the query is a `Query`: `sql` on the pool, `transaction` for a transaction of plain SQL, and
 * `prismaQuery(tx)` for plain SQL inside a Prisma transaction (never `$queryRaw` directly), so helpers such as
 * `lockKey` work in both. Rows come back with Prisma's field names (the schema does not rename columns),
 * `timestamptz` as Date and json/jsonb parsed.
 */
import { database } from "./index";

export async function sql<Row>(text: string, values: unknown[]): Promise<Row[]> {
  return (await database().pool.query(text, values)).rows as Row[];
}

export type Query = <Row>(text: string, values: unknown[]) => Promise<Row[]>;

/** Runs `fn` in a transaction on one pooled connection; rolled back if it throws. */
export async function transaction<T>(fn: (query: Query) => Promise<T>): Promise<T> {
  const client = await database().pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(async (text, values) => (await client.query(text, values)).rows);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (e) {
    // A connection that cannot even roll back is dropped rather than handed to the next caller.
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (err: Error) => err,
    );
    client.release(broken);
    throw e;
  }
}

/** The same `Query` over a Prisma interactive transaction, for SQL helpers used inside Prisma writes. */
export const prismaQuery =
  (tx: { $queryRawUnsafe<T>(query: string, ...values: unknown[]): Promise<T> }): Query =>
  (text, values) =>
    tx.$queryRawUnsafe(text, ...values);

/** Inside a transaction: waits for and holds, until the transaction ends, the lock named `key` (writers take turns). */
export async function lockKey(query: Query, key: string) {
  await query(`SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended($1, 0))`, [key]);
}

/** Dates inside a `to_json`/`json_agg` value arrive as ISO strings; turns them into Dates in place. */
export function reviveDates(value: Record<string, unknown>, keys: readonly string[]) {
  for (const k of keys) if (typeof value[k] === "string") value[k] = new Date(value[k]);
}
