/**
 * Plain SQL on the pool under Prisma's adapter, for the reads on every request's path (the caller's API key with
 * its owner, watches for display: `../tasks/reads`). On those, Prisma's query interpreter and result mapping cost several times
 * the query itself (README "Benchmarks"); every other read and all writes go through Prisma.
 * Rows come back with Prisma's field names (the schema does not rename columns), `timestamptz` as Date and
 * json/jsonb parsed.
 */
import { database } from "./index";

export async function sql<Row>(text: string, values: unknown[]): Promise<Row[]> {
  return (await database().pool.query(text, values)).rows as Row[];
}

/** Dates inside a `to_json`/`json_agg` value arrive as ISO strings; turns them into Dates in place. */
export function reviveDates(value: Record<string, unknown>, keys: readonly string[]) {
  for (const k of keys) if (typeof value[k] === "string") value[k] = new Date(value[k]);
}
