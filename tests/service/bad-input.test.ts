/**
 * Hostile and odd input on every endpoint, in-process: malformed, mistyped and overlong bodies are a 4xx {detail}; text
 * PostgreSQL cannot store is a 422 (never a 500, nothing written); an OWASP-style list of bad values sent to every
 * operation of the OpenAPI document, and to the dashboard's tRPC endpoint, never gets a 5xx. What the front and
 * Next.js do with bodies and paths before any route runs is tested on a real server (tests/http/robustness.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withService } from "../helpers/service";
import { BAD_PATH_IDS, operationsOf, type Operation } from "../helpers/operations";

const app = withService();
const { call, createTask, newUser } = app;

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";

describe("text PostgreSQL cannot store", () => {
  it("is refused with 422 on create, update and fork, and nothing is written", async () => {
    const u = await newUser();
    for (const [field, value] of [
      ["name", NUL],
      ["search_query", NUL],
      ["condition_description", LONE_SURROGATE],
      ["name", "\udc00"],
    ] as const) {
      const r = await call("POST", "/api/v1/tasks", { auth: u.token, body: { search_query: "ok", [field]: value } });
      expect(r.status, `${field} ${JSON.stringify(value)}`).toBe(422);
      expect(r.body.detail[0]).toMatchObject({
        type: "value_error",
        loc: ["body", field],
        msg: "must not contain NUL characters or unpaired surrogates",
      });
    }
    expect((await call("GET", "/api/v1/tasks", { auth: u.token })).body).toEqual([]);

    const t = await createTask(u.token, { name: "kept" });
    const update = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { name: NUL } });
    expect(update.status).toBe(422);
    const fork = await call("POST", `/api/v1/tasks/${t.id}/fork`, { auth: u.token, body: { name: LONE_SURROGATE } });
    expect(fork.status).toBe(422);
    const notify = await call("PUT", `/api/v1/tasks/${t.id}`, {
      auth: u.token,
      body: { notifications: [{ type: "webhook", url: "https://example.com/hook", headers: { "x-team": NUL } }] },
    });
    expect(notify.status).toBe(400);
    expect((await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token })).body).toMatchObject({
      name: "kept",
      notifications: [],
    });
    expect((await call("GET", `/api/v1/public/tasks?q=${encodeURIComponent(NUL)}`)).status).toBe(422);
    expect((await call("PATCH", "/api/v1/users/me/username", { auth: u.token, body: { username: NUL } })).status).toBe(
      422,
    );
  });
});

async function operations(): Promise<Operation[]> {
  return operationsOf((await call("GET", "/api/v1/openapi.json")).body);
}

const BAD_VALUES: unknown[] = [
  null,
  true,
  -1,
  1e308,
  -0,
  2 ** 53 + 1,
  "",
  " ",
  NUL,
  LONE_SURROGATE,
  "x".repeat(10_000),
  "' OR 1=1 --",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "%00",
  "${jndi:ldap://x}",
  [],
  [1, "a", null],
  {},
  { $gt: "" },
  { __proto__: { admin: true } },
  "00000000-0000-0000-0000-000000000000",
  "not-a-uuid",
  "😀".repeat(300),
];
/** A value as it goes into a URL; a lone surrogate cannot be percent-encoded, so its invalid UTF-8 bytes are sent. */
const inUrl = (v: unknown) =>
  typeof v === "string" && !v.isWellFormed() ? "a%ED%A0%80b" : encodeURIComponent(String(v));

describe("bad input", () => {
  it("answers malformed bodies, wrong content types and overlong fields with 4xx {detail}", async () => {
    const u = await newUser();
    const malformed = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body"] });
    const form = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      rawBody: "search_query=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    for (const body of ["[1,2]", '"text"', "null", "42"]) {
      const r = await call("POST", "/api/v1/tasks", {
        auth: u.token,
        rawBody: body,
        headers: { "content-type": "application/json" },
      });
      expect(r.status, body).toBe(422);
    }
    const long = await call("POST", "/api/v1/tasks", { auth: u.token, body: { search_query: "x".repeat(5000) } });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].type).toBe("string_too_long");
    expect((await call("GET", "/api/v1/tasks", { auth: u.token })).body).toEqual([]);
  });

  it("caps tRPC batches", async () => {
    const batch = (n: number) => call("GET", `/api/trpc/${Array(n).fill("tasks.list").join(",")}?batch=1&input=%7B%7D`);
    const over = await batch(11);
    expect(over.status).toBe(400);
    expect(over.body.error.detail).toBe("Batch call exceeds maximum size");
    const within = await batch(10);
    expect(within.body).toHaveLength(10);
  });

  it("round-trips unicode", async () => {
    const u = await newUser();
    const name = "Watch 👀 — ספר 日本語 ñ";
    const t = await createTask(u.token, { name, search_query: "العربية query 🚀" });
    const got = await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token });
    expect(got.body).toMatchObject({ name, search_query: "العربية query 🚀" });
  });

  it("answers unknown paths and methods with JSON 404s", async () => {
    const u = await newUser();
    for (const [method, path] of [
      ["GET", "/api/v1/nope"],
      ["PATCH", "/api/v1/tasks"],
      ["GET", "/auth/nope"],
    ] as const) {
      const r = await call(method, path, { auth: u.token });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(Object.keys(r.body)).toEqual(["detail"]);
    }
  });
});

describe("every endpoint under bad input", () => {
  // The NOAUTH test user, and a write limit high enough that every value reaches validation.
  beforeAll(() => app.setEnv({ SERVICE_NOAUTH: "1", RATE_LIMIT_USER_PER_MIN: "1000000" }));
  afterAll(() => app.setEnv({}));

  it("answers 4xx (or 2xx) to every bad value in every field, path and query parameter, never 5xx", async () => {
    const ops = (await operations()).filter((op) => !op.path.includes("/rss"));
    expect(ops.length).toBeGreaterThan(25);
    const failures: string[] = [];
    const attempt = async (method: string, path: string, opts: { body?: unknown; rawBody?: string; auth?: string }) => {
      const r = await call(method, path, {
        ...opts,
        headers: opts.rawBody !== undefined ? { "content-type": "application/json" } : undefined,
      });
      if (r.status >= 500)
        failures.push(
          `${method} ${path} ${opts.rawBody ?? JSON.stringify(opts.body) ?? ""}`.slice(0, 300) +
            ` -> ${r.status} ${r.text.slice(0, 200)}`,
        );
    };
    for (const op of ops) {
      const validPath = op.path.replace("{id}", "00000000-0000-0000-0000-000000000000");
      for (const id of op.path.includes("{id}") ? BAD_PATH_IDS : [])
        await attempt(op.method, op.path.replace("{id}", inUrl(id)), {});
      for (const param of op.params.filter((p) => p.in === "query"))
        for (const value of BAD_VALUES.filter((v) => typeof v === "string" || typeof v === "number"))
          await attempt(op.method, `${validPath}?${param.name}=${inUrl(value)}`, {});
      if (op.method === "GET" || op.method === "DELETE") continue;
      for (const raw of ["{", "[]", "null", '"x"', "1", '{"a":' + "[".repeat(5000) + "]".repeat(5000) + "}"])
        await attempt(op.method, validPath, { rawBody: raw });
      for (const field of Object.keys(op.body ?? { unknown_field: 1 }))
        for (const value of BAD_VALUES) {
          await attempt(op.method, validPath, { body: { [field]: value } });
          // A made-up key: the unauthenticated path too.
          await attempt(op.method, validPath, { body: { [field]: value }, auth: `sk_${"x".repeat(32)}` });
        }
    }
    // The dashboard's transport takes the same inputs.
    const deep = '{"a":' + "[".repeat(5000) + "]".repeat(5000) + "}";
    for (const [path, init] of [
      ["/api/trpc/tasks.create", { method: "POST", body: deep }],
      [`/api/trpc/tasks.get?input=${encodeURIComponent(deep)}`, { method: "GET" }],
      ["/api/trpc/tasks.create", { method: "POST", body: JSON.stringify({ search_query: NUL }) }],
      ["/api/trpc/nope.nothing", { method: "POST", body: "{}" }],
    ] as const) {
      const r = await app.fetch(path, { ...init, headers: { "content-type": "application/json" } });
      if (r.status >= 500) failures.push(`tRPC ${init.method} ${path.slice(0, 80)} -> ${r.status}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
