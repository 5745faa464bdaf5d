/**
 * A transaction of plain SQL: statements asked for together (on PostgreSQL they share a round trip) run in the order
 * asked, all or none; a row lock sent with the statements after it still makes concurrent writers take turns, each
 * later statement seeing what the writers before it committed. On PostgreSQL, BEGIN and the statements asked for with
 * it leave in one write.
 */
import net from "node:net";
import { describe, expect, it, vi } from "vitest";
import { sql, transaction, type Query } from "@/server/db/sql";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

describe("a transaction of plain SQL", () => {
  it("runs statements asked for together in order, and keeps none when one fails", async () => {
    await sql(`CREATE TABLE tx_probe (n int PRIMARY KEY, at timestamptz DEFAULT clock_timestamp())`, []);
    const insert = (q: Query, n: number) => q(`INSERT INTO tx_probe (n) VALUES ($1) RETURNING n`, [n]);

    await expect(transaction((q) => Promise.all([insert(q, 1), insert(q, 1), insert(q, 2)]))).rejects.toMatchObject({
      code: "23505",
    });
    expect(await sql(`SELECT n FROM tx_probe`, [])).toEqual([]);

    expect(await transaction((q) => Promise.all([1, 2, 3].map((n) => insert(q, n))))).toEqual([
      [{ n: 1 }],
      [{ n: 2 }],
      [{ n: 3 }],
    ]);
    expect(await sql(`SELECT n FROM tx_probe ORDER BY at`, [])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);

    // The last statement goes with the COMMIT: the database rolls back instead when a statement failed.
    await expect(transaction((q) => Promise.all([insert(q, 4), insert(q.last, 1)]))).rejects.toMatchObject({
      code: "23505",
    });
    expect(await transaction((q) => Promise.all([insert(q, 4), insert(q.last, 5)]))).toEqual([[{ n: 4 }], [{ n: 5 }]]);
    expect(await sql(`SELECT n FROM tx_probe ORDER BY at`, [])).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
    // The connections went back to the pool outside any transaction: another client sees every row.
    expect(await sql(`SELECT count(*)::int AS n FROM tx_probe`, [])).toEqual([{ n: 5 }]);
  });

  it("lets concurrent writers that lock a row first take turns: a cap counted after the lock holds", async () => {
    await sql(`CREATE TABLE cap_owner (id int PRIMARY KEY)`, []);
    await sql(`CREATE TABLE cap_item (owner int, n int)`, []);
    await sql(`INSERT INTO cap_owner VALUES (1)`, []);
    const CAP = 5;
    const add = (n: number) =>
      transaction(async (q) => {
        const locked = q(`SELECT id FROM cap_owner WHERE id = $1 FOR UPDATE`, [1]);
        const added = q<{ n: number }>(
          `INSERT INTO cap_item (owner, n) SELECT 1, $1 WHERE (SELECT count(*) FROM cap_item WHERE owner = 1) < $2
           RETURNING n`,
          [n, CAP],
        );
        const [, rows] = await Promise.all([locked, added]);
        return rows.length;
      });
    const added = await Promise.all(Array.from({ length: 24 }, (_, n) => add(n)));
    expect(added.filter(Boolean)).toHaveLength(CAP);
    expect(await sql(`SELECT count(*)::int AS n FROM cap_item`, [])).toEqual([{ n: CAP }]);
  });

  it.runIf(!!process.env.DATABASE_URL)(
    "sends BEGIN and the statements asked for with it in one write, COMMIT with `last`",
    async () => {
      await sql(`SELECT 1`, []); // the pool has a connection
      const writes = [vi.spyOn(net.Socket.prototype, "_write"), vi.spyOn(net.Socket.prototype, "_writev")];
      try {
        const count = () => writes.reduce((n, spy) => n + spy.mock.calls.length, 0);
        await transaction((q) => Promise.all([q(`SELECT $1::int AS a`, [1]), q(`SELECT $1::int AS b`, [2])]));
        // One write for BEGIN and both statements, one for COMMIT.
        expect(count()).toBe(2);
        await transaction((q) => Promise.all([q(`SELECT $1::int AS a`, [1]), q.last(`SELECT $1::int AS b`, [2])]));
        // The last statement and its COMMIT go with them.
        expect(count()).toBe(3);
      } finally {
        for (const spy of writes) spy.mockRestore();
      }
    },
  );
});
