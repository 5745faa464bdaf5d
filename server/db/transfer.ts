/**
 * Copies of the database, for `npm run db:backup`, `db:restore` and `db:move` (scripts/db-data.mts): every table of
 * the service's schema and of the durable engine's (watches, runs, sends, and the engine's pending wake-ups,
 * deliveries and sleeps), read in one snapshot, written as one JSON object per row, loaded into an empty database
 * migrated to the same schema, and verified by each table's row count and checksum before it is committed. Plain SQL
 * over the PostgreSQL protocol on both sides: no pg_dump is needed, and it works the same on PostgreSQL and on the
 * embedded database (served on a private Unix socket).
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import { once } from "node:events";
import pg from "pg";

export type Table = { schema: string; name: string; columns: string[] };
export type Summed = Table & { rows: number; checksum: string };
/** The first line of a backup file. */
export type BackupHeader = {
  watch_backup: 1;
  created_at: string;
  /** Prisma migrations applied to the database it was taken from. */
  migrations: string[];
  /** The durable engine's schema version. */
  engine_version: number;
  tables: Summed[];
};

/** The service's schema and the durable engine's. */
const SCHEMAS = ["public", "dbos"];
/** Each database's own record of its migrations: compared, not copied (the target's migrations write its own). */
const MIGRATION_TABLES = new Set(["public._prisma_migrations", "dbos.dbos_migrations"]);
const BATCH_ROWS = 2000;

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
export const tableName = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;
const qualified = (t: { schema: string; name: string }) => `${ident(t.schema)}.${ident(t.name)}`;

/** Output settings under which a row's text is the same on every server (checksums compare that text). */
const SESSION = `SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, MDY'; SET IntervalStyle TO 'postgres';
                 SET extra_float_digits TO 1; SET bytea_output TO 'hex'`;

export type Client = pg.Client;

export async function connect(url: string): Promise<Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(SESSION);
  return client;
}

/** The tables copied, with their columns (generated ones left out: the target computes them). */
export async function listTables(client: Client): Promise<Table[]> {
  const { rows } = await client.query<Table>(
    `SELECT n.nspname::text AS schema, c.relname::text AS name,
            array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY($1)
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [SCHEMAS],
  );
  return rows.filter((t) => !MIGRATION_TABLES.has(tableName(t)));
}

/**
 * A table's row count and an order-independent checksum of its rows (the sum of a hash of each row's text, over the
 * given columns), computed by the database itself on both sides of a copy.
 */
export async function sum(client: Client, table: Table): Promise<Summed> {
  const row = `ROW(${table.columns.map((c) => `t.${ident(c)}`).join(", ")})::text`;
  const { rows } = await client.query<{ rows: string; checksum: string }>(
    `SELECT count(*)::text AS rows,
            coalesce(sum(('x' || substr(md5(${row}), 1, 15))::bit(60)::bigint::numeric), 0)::text AS checksum
       FROM ${qualified(table)} t`,
  );
  return { ...table, rows: Number(rows[0]!.rows), checksum: rows[0]!.checksum };
}

export async function schemaVersions(client: Client) {
  const { rows } = await client.query<{ name: string }>(
    `SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
      ORDER BY 1`,
  );
  const engine = await client.query<{ version: string }>(
    `SELECT max(version)::text AS version FROM dbos.dbos_migrations`,
  );
  return { migrations: rows.map((r) => r.name), engine_version: Number(engine.rows[0]?.version ?? 0) };
}

/**
 * Reads every table in one snapshot (a read-only repeatable-read transaction: writers go on, and what is read is the
 * database as of its start): first what it holds (`start`: schema versions, each table's count and checksum), then
 * each table's rows as JSON text, in batches.
 */
export async function readSnapshot(
  client: Client,
  handlers: {
    start: (snapshot: Omit<BackupHeader, "watch_backup" | "created_at">) => Promise<void>;
    rows: (index: number, rows: string[]) => Promise<void>;
  },
) {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const versions = await schemaVersions(client);
    const tables: Summed[] = [];
    for (const table of await listTables(client)) tables.push(await sum(client, table));
    await handlers.start({ ...versions, tables });
    for (const [index, table] of tables.entries()) {
      const cols = table.columns.map((c) => `t.${ident(c)}`).join(", ");
      await client.query(
        `DECLARE copy_rows NO SCROLL CURSOR FOR
         SELECT row_to_json(r)::text AS row FROM (SELECT ${cols} FROM ${qualified(table)} t) r`,
      );
      for (;;) {
        const { rows } = await client.query<{ row: string }>(`FETCH ${BATCH_ROWS} FROM copy_rows`);
        if (rows.length)
          await handlers.rows(
            index,
            rows.map((r) => r.row),
          );
        if (rows.length < BATCH_ROWS) break;
      }
      await client.query("CLOSE copy_rows");
    }
    await client.query("COMMIT");
    return { ...versions, tables };
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  }
}

/** A copy whose tables, once loaded, differ from what its source held: nothing of it was kept. */
export class CopyMismatch extends Error {
  constructor(readonly verification: Verification) {
    super(
      `${verification.mismatches.length} table(s) do not match the row count and checksum of the source (${verification.mismatches.map((m) => m.table).join(", ")}): nothing was loaded`,
    );
  }
}

/**
 * Loads rows into an empty database already migrated to the same schema, in one transaction: its foreign keys are
 * dropped for the load and added back at the end (which checks every reference), every table's row count and checksum
 * are compared with what the source held (`expected`, known once the rows are read) before anything is committed, and
 * sequences continue after the loaded rows. A failure or a difference (a damaged or altered copy: `CopyMismatch`)
 * leaves the database as it was.
 */
export async function load(
  client: Client,
  tables: Table[],
  rowsOf: (each: (table: Table, rows: string[]) => Promise<void>) => Promise<void>,
  expected: () => Summed[],
): Promise<Verification> {
  const present = new Map((await listTables(client)).map((t) => [tableName(t), t]));
  for (const t of tables) {
    const there = present.get(tableName(t));
    if (!there) throw new Error(`The target has no table ${tableName(t)}: is it migrated to the same version?`);
    const missing = t.columns.filter((c) => !there.columns.includes(c));
    if (missing.length)
      throw new Error(`The target's ${tableName(t)} has no column ${missing.join(", ")}: it is older than the copy`);
  }
  const busy: string[] = [];
  for (const t of present.values()) {
    const { rows } = await client.query(`SELECT 1 FROM ${qualified(t)} LIMIT 1`);
    if (rows.length) busy.push(tableName(t));
  }
  if (busy.length)
    throw new Error(`The target database is not empty (rows in ${busy.join(", ")}): load into an empty database`);

  let verification: Verification;
  await client.query("BEGIN");
  try {
    const { rows: keys } = await client.query<{ tbl: string; name: string; def: string }>(
      `SELECT conrelid::regclass::text AS tbl, conname::text AS name, pg_get_constraintdef(oid) AS def
         FROM pg_constraint
        WHERE contype = 'f' AND connamespace IN (SELECT oid FROM pg_namespace WHERE nspname = ANY($1))`,
      [SCHEMAS],
    );
    for (const k of keys) await client.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT ${ident(k.name)}`);
    await rowsOf(async (table, rows) => {
      const cols = table.columns.map(ident).join(", ");
      await client.query(
        `INSERT INTO ${qualified(table)} (${cols}) OVERRIDING SYSTEM VALUE
         SELECT ${cols} FROM json_populate_recordset(NULL::${qualified(table)}, $1::json)`,
        [`[${rows.join(",")}]`],
      );
    });
    for (const k of keys) await client.query(`ALTER TABLE ${k.tbl} ADD CONSTRAINT ${ident(k.name)} ${k.def}`);
    // The counts the database keeps (each account's watches) follow every row loaded, on top of the copied count, or
    // were missing from an older copy: counted again from the rows, they match a faithful copy's.
    await client.query("SELECT recount_watches()");
    verification = await verify(client, expected());
    if (verification.mismatches.length) throw new CopyMismatch(verification);
    for (const t of tables)
      for (const c of t.columns) {
        const { rows } = await client.query<{ seq: string | null }>(`SELECT pg_get_serial_sequence($1, $2) AS seq`, [
          qualified(t),
          c,
        ]);
        const seq = rows[0]?.seq;
        if (seq)
          await client.query(
            `SELECT setval($1, coalesce((SELECT max(${ident(c)}) FROM ${qualified(t)}), 1),
                    (SELECT max(${ident(c)}) IS NOT NULL FROM ${qualified(t)}))`,
            [seq],
          );
      }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  }
  // Fresh statistics for the planner (the public search's plan depends on them).
  await client.query("ANALYZE");
  return verification;
}

export type Verification = Awaited<ReturnType<typeof verify>>;

/** Each table's count and checksum on the target against the source's; the mismatches (none: a faithful copy). */
export async function verify(client: Client, expected: Summed[]) {
  const report: { table: string; rows: number; expected: Summed; actual: Summed }[] = [];
  for (const t of expected) {
    const actual = await sum(client, t);
    report.push({ table: tableName(t), rows: actual.rows, expected: t, actual });
  }
  const mismatches = report.filter(
    (r) => r.actual.rows !== r.expected.rows || r.actual.checksum !== r.expected.checksum,
  );
  return { report, mismatches };
}

/**
 * Writes a backup file: its header line (what it holds), then `<table index>\t<row JSON>` per row; gzipped. Written
 * to a new file of the owner's only (0600) beside it, which then takes its place: a file already there keeps neither
 * its mode nor, when the backup fails, loses its contents.
 */
export async function writeBackup(client: Client, file: string): Promise<BackupHeader> {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  const out = zlib.createGzip();
  const sink = fs.createWriteStream(partial, { mode: 0o600, flags: "wx" });
  out.pipe(sink);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  let header: BackupHeader | undefined;
  try {
    await once(sink, "open");
    await readSnapshot(client, {
      start: async (snapshot) => {
        header = { watch_backup: 1, created_at: new Date().toISOString(), ...snapshot };
        await write(JSON.stringify(header) + "\n");
      },
      rows: (index, rows) => write(rows.map((r) => `${index}\t${r}\n`).join("")),
    });
    out.end();
    await once(sink, "finish");
    fs.renameSync(partial, file);
    return header!;
  } catch (e) {
    out.destroy();
    sink.destroy();
    fs.rmSync(partial, { force: true });
    throw e;
  }
}

/** Reads a backup file's header, then hands its rows on in batches per table. */
export async function readBackup(file: string) {
  const lines = readline
    .createInterface({
      input: fs.createReadStream(file).pipe(zlib.createGunzip()),
      crlfDelay: Infinity,
    })
    [Symbol.asyncIterator]();
  const first = await lines.next();
  let header: BackupHeader;
  try {
    header = JSON.parse(first.done ? "" : first.value) as BackupHeader;
  } catch {
    throw new Error(`${file} is not a Watch backup (npm run db:backup writes them)`);
  }
  if (header?.watch_backup !== 1) throw new Error(`${file} is not a Watch backup (npm run db:backup writes them)`);
  return {
    header,
    async rows(each: (table: Table, rows: string[]) => Promise<void>) {
      let current = -1;
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length) await each(header.tables[current]!, batch);
        batch = [];
      };
      for (;;) {
        const next = await lines.next();
        if (next.done) break;
        const tab = next.value.indexOf("\t");
        const index = Number(next.value.slice(0, tab));
        if (tab < 0 || !header.tables[index]) throw new Error(`${file} is damaged: a row of no known table`);
        if (index !== current || batch.length >= BATCH_ROWS) {
          await flush();
          current = index;
        }
        batch.push(next.value.slice(tab + 1));
      }
      await flush();
    },
  };
}
