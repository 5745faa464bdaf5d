/**
 * Plain SQL goes as named prepared statements: a statement whose rows' columns changed under it (a migration by
 * another replica) is prepared again rather than failing, on the pool and at a transaction's next attempt. Its rows'
 * shape is described at its first run on a connection and kept there (node-postgres, patched).
 */
import { describe, expect, it } from "vitest";
import { sql, transaction } from "@/server/db/sql";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

describe("prepared statements", () => {
  it("survive a column added under them, on every pooled connection", async () => {
    await sql(`CREATE TABLE prepared_probe (a int)`, []);
    await sql(`INSERT INTO prepared_probe (a) VALUES (1)`, []);
    const read = () => sql<{ a: number; b?: number }>(`SELECT p.* FROM prepared_probe p WHERE p.a = $1`, [1]);
    // Several at once: each pooled connection prepares the statement.
    expect(await Promise.all(Array.from({ length: 12 }, read))).toEqual(Array(12).fill([{ a: 1 }]));

    await sql(`ALTER TABLE prepared_probe ADD COLUMN b int DEFAULT 2`, []);
    expect(await Promise.all(Array.from({ length: 12 }, read))).toEqual(Array(12).fill([{ a: 1, b: 2 }]));

    await sql(`ALTER TABLE prepared_probe ADD COLUMN c int DEFAULT 3`, []);
    const inTransaction = () =>
      transaction((q) => q<{ c: number }>(`SELECT p.* FROM prepared_probe p WHERE p.a = $1`, [1]));
    // The transaction's read was prepared on a connection before the change: at worst its first attempt is refused.
    const first = await inTransaction().catch((e: { code?: string }) => e.code);
    if (first !== "0A000") expect(first).toEqual([{ a: 1, b: 2, c: 3 }]);
    expect(await inTransaction()).toEqual([{ a: 1, b: 2, c: 3 }]);
  });

  it("read their rows alike, typed, at every run on a connection, whatever their first run answered", async () => {
    const read = (q: (text: string, values: unknown[]) => Promise<unknown[]>, n: number) =>
      q(
        `SELECT $1::int AS n, timestamptz '2026-11-29 12:00:00.123+00' + make_interval(days => $1) AS at,
                jsonb_build_object('n', $1::int) AS doc, NULLIF($1::int, 2) AS maybe, 'x' || $1 AS label
           FROM generate_series(1, $1::int) g`,
        [n],
      );
    const runs = await transaction(async (q) => {
      const out = [];
      for (const n of [0, 1, 2, 3, 1]) out.push(await read(q, n));
      return out;
    });
    const row = (n: number) => ({
      n,
      at: new Date(Date.UTC(2026, 10, 29 + n, 12, 0, 0, 123)),
      doc: { n },
      maybe: n === 2 ? null : n,
      label: `x${n}`,
    });
    expect(runs).toEqual([[], [row(1)], [row(2), row(2)], [row(3), row(3), row(3)], [row(1)]]);
  });
});
