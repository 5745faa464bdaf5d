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
import type { Writable } from "node:stream";
import type pg from "pg";
import { database } from "./index";
import { parseTimestamp } from "./timestamps";

/**
 * The most statement texts sent as named prepared statements. Each is parsed and planned once per connection instead
 * of at every call, and its rows' columns described once (node-postgres, patched in scripts/patches, keeps the first
 * run's description and column parsers for the later runs): the reads on every request are long (a watch with its
 * channels, runs, finding and deliveries), and sending and planning them cost the server and the database more than
 * running them (docs/benchmarks.md). Texts are built from a bounded set of parts (a test file of the services uses
 * 23–55); the cap bounds what each connection keeps in the database against a text that is not, whose texts then go
 * unnamed.
 */
const PREPARED = 500;
/** One register per process: the bundler may load this module more than once, and the pool is shared. */
const g = globalThis as unknown as { __watchStatements?: { names: Map<string, string>; next: number } };
const statements = (g.__watchStatements ??= { names: new Map(), next: 0 });
const names = statements.names;

/** The statement's name, or undefined: unnamed past the cap, and where the database cannot keep them (`unprepared`). */
function nameOf(text: string): string | undefined {
  const name = names.get(text);
  if (name || names.size >= PREPARED || database().unprepared) return name;
  const fresh = `w${statements.next++}`;
  names.set(text, fresh);
  return fresh;
}

/** The database refuses a prepared statement whose rows' columns changed. */
const isStale = (e: unknown) =>
  (e as { code?: string }).code === "0A000" && /cached plan must not change result type/.test(String(e));

/**
 * A statement with values, named. One that went stale (a migration by another replica while this one runs) is
 * prepared again under a new name at its next call.
 */
async function run(client: pg.Pool | pg.PoolClient, text: string, values: unknown[]) {
  // Without values `pg` sends the simple protocol, which takes several statements in one text; a prepared one cannot.
  if (!values.length) return (await client.query(text)).rows;
  try {
    return (await client.query({ name: nameOf(text), text, values })).rows;
  } catch (e) {
    if (isStale(e)) names.delete(text);
    throw e;
  }
}

/** A statement on the pool (a stale one is sent again at once; in a transaction, the refusal ends it). */
export async function sql<Row>(text: string, values: unknown[]): Promise<Row[]> {
  const pool = database().pool;
  return (await run(pool, text, values).catch((e: unknown) => {
    if (isStale(e)) return run(pool, text, values);
    throw e;
  })) as Row[];
}

export type Query = <Row>(text: string, values: unknown[]) => Promise<Row[]>;
/**
 * A transaction's `Query`, and `last`: its final statement, sent with the COMMIT. Once it succeeds the transaction is
 * committed, whatever `fn` does next; nothing may be asked after it.
 */
export type TransactionQuery = Query & { last: Query };

/**
 * Runs `fn` in a transaction on one pooled connection; rolled back if it throws. On a pipelined pool (`pipelined` in
 * `./index`) each statement is sent when asked for: BEGIN goes with the first, and statements asked for together
 * (`Promise.all`) share a round trip, each still run after the one before it, with its own snapshot; `query.last`
 * takes the COMMIT along. Elsewhere each waits for the answer to the one before.
 */
export async function transaction<T>(fn: (query: TransactionQuery) => Promise<T>): Promise<T> {
  const client = await database().pool.connect();
  const pipelined = database().pipelined;
  const together = pipelined ? oneWritePerTick(client) : undefined;
  let turn: Promise<unknown> = Promise.resolve();
  const send = <R>(go: () => Promise<R>): Promise<R> => {
    if (together) {
      together();
      return go();
    }
    const next = turn.then(go);
    turn = next.catch(() => undefined);
    return next;
  };
  const query = (<Row>(text: string, values: unknown[]) =>
    send(() => run(client, text, values) as Promise<Row[]>)) satisfies Query;
  let committed: Promise<unknown> | undefined;
  // After a statement that failed, the database answers COMMIT by rolling back.
  const last = (async <Row>(text: string, values: unknown[]) => {
    const rows = query<Row>(text, values);
    committed = send(() => client.query("COMMIT"));
    committed.catch(() => undefined); // awaited below
    const answer = await rows;
    await committed;
    return answer;
  }) satisfies Query;
  try {
    const begun = send(() => client.query("BEGIN"));
    // Pipelined, the statements go out behind it before its answer: BEGIN fails only with its connection, and they
    // with it. Otherwise they wait for it.
    if (pipelined) begun.catch(() => undefined);
    else await begun;
    const result = await fn(Object.assign(query, { last }));
    await begun;
    await (committed ?? send(() => client.query("COMMIT")));
    client.release();
    return result;
  } catch (e) {
    // A connection that cannot even roll back is dropped rather than handed to the next caller.
    const broken = await send(() => client.query("ROLLBACK")).then(
      () => undefined,
      (err: Error) => err,
    );
    client.release(broken);
    throw e;
  }
}

/**
 * Corks the connection's socket until the end of the current tick, so the statements sent meanwhile leave in one write:
 * on loopback a write costs the sender the receiver's side of the work too, ~0.15 ms each (docs/benchmarks.md).
 * node-postgres keeps its socket at `connection.stream`, and corks it itself around each statement's messages.
 */
function oneWritePerTick(client: pg.PoolClient) {
  const stream = (client as unknown as { connection?: { stream?: Partial<Writable> } }).connection?.stream;
  let corked = false;
  return () => {
    if (corked || !stream?.cork || !stream.uncork) return;
    stream.cork();
    corked = true;
    process.nextTick(() => {
      corked = false;
      stream.uncork!();
    });
  };
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

/**
 * Inside a transaction: locks the account's row until the transaction ends. Whatever changes an account's watches or
 * keys against a cap takes it first (creates, resumes, deletes, a new API key), so they take turns, and always before
 * any watch's row: one order, no deadlock. Returns the statement's promise, so it can be sent ahead of the next one.
 */
export const lockAccount = (query: Query, userId: string) =>
  query(`SELECT id FROM users WHERE id = $1::uuid FOR UPDATE`, [userId]);

/** Dates inside a `to_json`/`json_agg` value arrive as ISO strings; turns them into Dates in place. */
export function reviveDates(value: Record<string, unknown>, keys: readonly string[]) {
  for (const k of keys) if (typeof value[k] === "string") value[k] = parseTimestamp(value[k]);
}
