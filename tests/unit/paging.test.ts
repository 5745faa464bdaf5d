/**
 * Paged lists, in-process through the routers (what REST, the dashboard and MCP call): the own list's limit/offset
 * with X-Total-Count (every watch without them), and the public directory's count, exact up to 1,000 and capped
 * past it with X-Total-Count-Capped.
 */
import { describe, expect, it } from "vitest";
import { sql } from "@/server/db/sql";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";
import { PUBLIC_COUNT_CAP } from "@/server/public/service";
import { pageAndTotal } from "@/server/db/paging";
import type { User } from "@/server/db";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

async function newUser(): Promise<User> {
  const [user] = await sql<User>(
    `INSERT INTO users (id, clerk_user_id, email) VALUES (gen_random_uuid(), 'user_' || gen_random_uuid(), 'p@example.com')
     RETURNING *`,
    [],
  );
  return user!;
}

/** `n` watches of `user`, created one second apart (the list is newest first); `public` ones in the directory. */
const addWatches = (user: User, n: number, opts: { public?: boolean; name?: string } = {}) =>
  sql(
    `INSERT INTO tasks (id, user_id, name, search_query, condition_description, is_public, created_at)
     SELECT gen_random_uuid(), $1::uuid, $2 || ' ' || i, 'q', 'c', $3, now() - make_interval(secs => i)
       FROM generate_series(1, $4::int) i`,
    [user.id, opts.name ?? "watch", opts.public ?? false, n],
  );

function caller(user?: User) {
  const ctx = createContext({
    headers: new Headers({ "x-watch-client-ip": "192.0.2.1" }),
    via: "rest",
    httpMethod: "GET",
    authenticated: user ? { method: "api_key", user } : undefined,
  });
  return { api: appRouter.createCaller(ctx), headers: ctx.res.headers };
}

describe("the own list", () => {
  it("answers every watch without limit/offset, a page with them; X-Total-Count counts all", async () => {
    const user = await newUser();
    await addWatches(user, 7);
    const all = caller(user);
    const every = await all.api.tasks.list({});
    expect(every.map((t) => t.name)).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `watch ${i}`));
    expect(all.headers["X-Total-Count"]).toBe("7");

    const paged = caller(user);
    const page = await paged.api.tasks.list({ limit: 3, offset: 3 });
    expect(page.map((t) => t.name)).toEqual(["watch 4", "watch 5", "watch 6"]);
    expect(paged.headers["X-Total-Count"]).toBe("7");

    const past = caller(user);
    expect(await past.api.tasks.list({ limit: 3, offset: 9 })).toEqual([]);
    expect(past.headers["X-Total-Count"]).toBe("7");
  });

  it("counts the list from a first page asking for more than, exactly and one fewer than its watches", async () => {
    const user = await newUser();
    await addWatches(user, 4);
    for (const limit of [5, 4, 3]) {
      const first = caller(user);
      expect((await first.api.tasks.list({ limit })).map((t) => t.name)).toEqual(
        [1, 2, 3, 4].slice(0, limit).map((i) => `watch ${i}`),
      );
      expect(first.headers["X-Total-Count"], `limit ${limit}`).toBe("4");
    }
  });

  it("counts with the state filter, and refuses a limit outside 1-500 or a negative offset", async () => {
    const user = await newUser();
    await addWatches(user, 2);
    await sql(`UPDATE tasks SET state = 'paused' WHERE user_id = $1::uuid AND name = 'watch 1'`, [user.id]);
    const paused = caller(user);
    expect((await paused.api.tasks.list({ state: "paused", limit: 1 })).map((t) => t.name)).toEqual(["watch 1"]);
    expect(paused.headers["X-Total-Count"]).toBe("1");
    const none = caller(user);
    expect(await none.api.tasks.list({ state: "completed", limit: 1 })).toEqual([]);
    expect(none.headers["X-Total-Count"]).toBe("0");
    for (const bad of [{ limit: 0 }, { limit: 501 }, { offset: -1 }, { limit: 1.5 }])
      await expect(caller(user).api.tasks.list(bad)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("a page and its total", () => {
  const list = ["a", "b", "c", "d"];
  /** What `pageAndTotal` read (limit asked) and whether it counted. */
  async function run(page: { limit?: number; offset?: number }) {
    const reads: (number | undefined)[] = [];
    let counted = false;
    const out = await pageAndTotal(
      page,
      async (limit) => (reads.push(limit), list.slice(page.offset ?? 0, limit && (page.offset ?? 0) + limit)),
      async () => ((counted = true), list.length),
    );
    return { ...out, reads, counted };
  }

  it("counts only when the first page, read one row longer, has more after it", async () => {
    expect(await run({})).toEqual({ rows: list, total: 4, reads: [undefined], counted: false });
    expect(await run({ limit: 5 })).toEqual({ rows: list, total: 4, reads: [6], counted: false });
    expect(await run({ limit: 4 })).toEqual({ rows: list, total: 4, reads: [5], counted: false });
    expect(await run({ limit: 3 })).toEqual({ rows: ["a", "b", "c"], total: 4, reads: [4], counted: true });
  });

  it("reads a later page as asked, beside its count", async () => {
    expect(await run({ limit: 2, offset: 2 })).toEqual({ rows: ["c", "d"], total: 4, reads: [2], counted: true });
    expect(await run({ limit: 2, offset: 9 })).toEqual({ rows: [], total: 4, reads: [2], counted: true });
  });
});

describe("the public directory's count", () => {
  it("is the page's length when the first page holds every match", async () => {
    const user = await newUser();
    const name = `fewcount${Date.now()}`;
    await addWatches(user, 2, { public: true, name });
    for (const limit of [3, 2, 1]) {
      const few = caller();
      expect(await few.api.public.list({ q: name, limit })).toHaveLength(Math.min(limit, 2));
      expect(few.headers["X-Total-Count"], `limit ${limit}`).toBe("2");
      expect(few.headers["X-Total-Count-Capped"]).toBeUndefined();
    }
  });

  it(
    `is exact up to ${PUBLIC_COUNT_CAP}, then ${PUBLIC_COUNT_CAP} with X-Total-Count-Capped`,
    {
      timeout: 60_000,
    },
    async () => {
      const user = await newUser();
      const name = `capcount${Date.now()}`;
      await addWatches(user, PUBLIC_COUNT_CAP, { public: true, name });
      await addWatches(user, 3, { name }); // private: never counted

      const exact = caller();
      expect(await exact.api.public.list({ q: name, limit: 5 })).toHaveLength(5);
      expect(exact.headers["X-Total-Count"]).toBe(String(PUBLIC_COUNT_CAP));
      expect(exact.headers["X-Total-Count-Capped"]).toBeUndefined();

      await addWatches(user, 1, { public: true, name });
      const capped = caller();
      expect(await capped.api.public.list({ q: name, limit: 5 })).toHaveLength(5);
      expect(capped.headers["X-Total-Count"]).toBe(String(PUBLIC_COUNT_CAP));
      expect(capped.headers["X-Total-Count-Capped"]).toBe("true");

      // A narrower search counts exactly again.
      const narrow = caller();
      await narrow.api.public.list({ q: `${name} 1000`, limit: 5 });
      expect(narrow.headers["X-Total-Count"]).toBe("1");
    },
  );
});

describe("MCP", () => {
  it("list_watches pages the own list, 20 at a time unless asked, at most 100", async () => {
    const { TOOLS } = await import("@/server/mcp/tools");
    const list = TOOLS.find((t) => t.name === "list_watches")!;
    expect(list.inputSchema.properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      offset: { type: "integer", minimum: 0, default: 0 },
    });
    expect(list.inputSchema.required ?? []).toEqual([]);
  });

  it("list_watches takes the list's order, words and state, as GET /api/v1/tasks does", async () => {
    const { callTool, TOOLS } = await import("@/server/mcp/tools");
    expect(TOOLS.find((t) => t.name === "list_watches")!.inputSchema.properties).toMatchObject({
      sort: { enum: ["attention", "created", "updated", "name"] },
      state: { enum: ["active", "paused", "completed", "met", "watching", "held", "failing"] },
      q: { type: "string", maxLength: 200 },
    });
    const user = await newUser();
    await addWatches(user, 3, { name: "zebra" });
    await addWatches(user, 2, { name: "apple" });
    await sql(`UPDATE tasks SET state = 'paused' WHERE user_id = $1 AND name = 'zebra 2'`, [user.id]);
    const call = async (args: Record<string, unknown>) =>
      (await callTool("list_watches", args, {
        caller: { method: "api_key", user },
        headers: new Headers({ "x-watch-client-ip": "192.0.2.1" }),
      }))!;
    const names = (r: Awaited<ReturnType<typeof call>>) =>
      (r.structuredContent!.watches as { name: string }[]).map((w) => w.name);
    expect(names(await call({ sort: "name" }))).toEqual(["apple 1", "apple 2", "zebra 1", "zebra 2", "zebra 3"]);
    expect((await call({ q: "ZEBRA", state: "paused" })).structuredContent).toMatchObject({
      total: 1,
      watches: [{ name: "zebra 2" }],
    });
    expect((await call({ q: "apple", sort: "name", limit: 1, offset: 1 })).structuredContent).toMatchObject({
      total: 2,
      watches: [{ name: "apple 2" }],
    });
    const refused = await call({ sort: "random" });
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/^sort: /);
  });
});
