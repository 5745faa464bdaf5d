/**
 * Plain SQL on the pool under Prisma's adapter, for the hot paths: the reads on every request's path (the caller's
 * API key with its owner, watches for display: `../tasks/reads`) and the two transactions of every watch run
 * (claim and record: `../runs/steps`). On those, Prisma's query interpreter, result mapping and transaction
 * handling cost several times the queries themselves (docs/benchmarks.md); everything else goes through Prisma.
 * Rows come back with Prisma's field names (the schema does not rename columns), `timestamptz` as Date and
 * json/jsonb parsed.
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

/** Dates inside a `to_json`/`json_agg` value arrive as ISO strings; turns them into Dates in place. */
export function reviveDates(value: Record<string, unknown>, keys: readonly string[]) {
  for (const k of keys) if (typeof value[k] === "string") value[k] = new Date(value[k]);
}
