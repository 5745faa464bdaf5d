/** The served OpenAPI document says what each operation really answers (not only that its snapshot is current). */
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/api/openapi";
import { describeLimit } from "@/server/ratelimit";

type Op = {
  security?: unknown[];
  parameters?: { name: string; in: string; schema: { pattern?: string; maxLength?: number } }[];
  requestBody?: unknown;
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown }>;
  "x-rate-limit"?: { bucket: string; limit: number }[];
};
const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, Op>> };
const op = (method: string, path: string) => doc.paths[path]![method]!;
const describeOf = (method: string, path: string, status: number) =>
  op(method, path).responses[String(status)]?.description;
/** The API's operations, less the health check (for monitors: never rate limited, its answer documented apart). */
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  path === "/api/health"
    ? []
    : Object.entries(item).map(([method, o]) => ({ method, path, op: o, name: `${method.toUpperCase()} ${path}` })),
);

const PUBLIC = [
  ["get", "/api/v1/public/tasks"],
  ["get", "/api/v1/public/tasks/id/{id}"],
  ["post", "/api/v1/public/waitlist"],
  ["get", "/api/v1/public/tasks/id/{id}/rss"],
  ["get", "/api/v1/public/tasks/id/{id}/feed.json"],
  ["get", "/api/v1/public/tasks/id/{id}/badge.svg"],
] as const;
const isPublic = (m: string, p: string) =>
  PUBLIC.some(([pm, pp]) => pm === m && pp === p) || p.startsWith("/api/v1/email/") || p.startsWith("/api/v1/public/");

describe("OpenAPI document", () => {
  it("gives each operation its own error descriptions", () => {
    expect(describeOf("patch", "/api/v1/users/me/username", 409)).toBe("Username already taken");
    expect(describeOf("post", "/api/v1/public/waitlist", 409)).toBe("Email already on waitlist");
    expect(describeOf("post", "/api/v1/tasks/{id}/execute", 409)).toBe("Task is already running or pending");
    expect(describeOf("get", "/api/v1/tasks/{id}", 404)).toMatch(/Task not found/);
    // A status an operation never answers is not listed.
    expect(describeOf("get", "/api/v1/tasks", 409)).toBeUndefined();
    expect(describeOf("get", "/api/v1/webhooks/secret", 400)).toBeUndefined();
  });

  it("documents the success status each operation answers", () => {
    expect(Object.keys(op("delete", "/api/v1/tasks/{id}").responses)[0]).toBe("204");
    expect(op("delete", "/api/v1/tasks/{id}").responses["204"]!.content).toBeUndefined();
    expect(Object.keys(op("delete", "/api/v1/tasks/{id}/follow").responses)[0]).toBe("204");
    expect(Object.keys(op("post", "/api/v1/public/tasks/id/{id}/follow").responses)[0]).toBe("202");
    expect(Object.keys(op("post", "/api/v1/notifications/sends/{id}/redeliver").responses)[0]).toBe("202");
    // Following answers 201, or 200 when you followed already; both with the follow.
    const follow = op("post", "/api/v1/tasks/{id}/follow").responses;
    expect(follow["201"]?.content).toEqual(follow["200"]?.content);
    expect(Object.keys(op("post", "/api/v1/tasks").responses)[0]).toBe("200");
  });

  it("says who may call each operation: anyone, a bearer, a dashboard session, an admin", () => {
    for (const { method, path, op: o, name } of operations) {
      if (isPublic(method, path)) {
        expect(o.security, name).toEqual([{}]);
        expect(o.responses["401"], name).toBeUndefined();
        continue;
      }
      expect(o.responses["401"]?.description, name).toBe("Missing, invalid or expired credentials");
      if (path.startsWith("/api/v1/admin/")) expect(o.security, name).toEqual([{ admin: [] }]);
      else if (path === "/auth/sync-user") expect(o.security, name).toEqual([{ session: [] }]);
      else expect(o.security, name).toEqual([{ bearer: [] }]);
    }
    expect(describeOf("get", "/api/v1/admin/waitlist", 403)).toMatch(/Admins only/);
  });

  it("rate limits every operation, and documents the headers on each of its 2xx and 4xx answers and the limits", () => {
    for (const { op: o, name } of operations) {
      expect(o["x-rate-limit"]?.length, name).toBeGreaterThan(0);
      for (const [status, r] of Object.entries(o.responses))
        if (/^[234]/.test(status))
          expect(Object.keys(r.headers ?? {}), `${name} ${status}`).toEqual(
            expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]),
          );
      expect(Object.keys(o.responses["429"]!.headers!), name).toContain("Retry-After");
    }
    // The health check is for monitors, which must never be refused: anyone's, not rate limited, its answer the
    // `default`.
    expect(Object.keys(op("get", "/api/health").responses)).toEqual(["default"]);
    expect(op("get", "/api/health")["x-rate-limit"]).toBeUndefined();
    expect(op("get", "/api/health").security).toEqual([{}]);
    // The 429 says the numbers of the buckets themselves.
    expect(describeOf("post", "/auth/api-keys", 429)).toContain(describeLimit("api-key-create"));
    expect(describeOf("post", "/auth/api-keys", 429)).toContain(describeLimit("user-write"));
    expect(describeOf("get", "/api/v1/public/tasks", 429)).toBe(
      `Rate limit exceeded: over ${describeLimit("public-list")}`,
    );
    // Reads of your own data count per account; refused credentials per client address.
    expect(op("get", "/api/v1/tasks")["x-rate-limit"]).toEqual([
      { bucket: "user-read", limit: 600, window_seconds: 60, per: "user" },
    ]);
    expect(describeOf("get", "/api/v1/tasks", 429)).toBe(
      `Rate limit exceeded: over ${describeLimit("user-read")}, or over ${describeLimit("api-key-failure")}, or over ${describeLimit("refused-credentials")}`,
    );
    // The buttons behind email links count per client address.
    expect(op("post", "/api/v1/public/follows/unsubscribe")["x-rate-limit"]).toMatchObject([{ bucket: "public" }]);
  });

  it("bounds every path parameter (an id is an anchored UUID pattern)", () => {
    for (const { op: o, name } of operations)
      for (const p of o.parameters?.filter((p) => p.in === "path") ?? []) {
        expect(p.schema.maxLength, `${name} {${p.name}}`).toBeLessThanOrEqual(255);
        if (p.name === "id") expect(p.schema.pattern, name).toMatch(/^\^.*\$$/);
      }
  });

  it("takes execute's force from the query string, without a request body", () => {
    const execute = op("post", "/api/v1/tasks/{id}/execute");
    expect(execute.requestBody).toBeUndefined();
    expect(execute.parameters?.find((p) => p.name === "force")?.in).toBe("query");
  });

  it("documents conditional GET (ETag, 304) on the feeds, the badge and the public watch", () => {
    for (const suffix of ["", "/rss", "/feed.json", "/badge.svg"]) {
      const o = op("get", `/api/v1/public/tasks/id/{id}${suffix}`);
      expect(o.responses["304"]?.description, suffix).toMatch(/^Not Modified/);
      expect(Object.keys(o.responses["200"]?.headers ?? {}), suffix).toEqual(
        expect.arrayContaining(["ETag", "Cache-Control"]),
      );
      expect(
        o.parameters?.map((p) => p.name),
        suffix,
      ).toContain("If-None-Match");
    }
  });

  it("documents the validation list where there is input, and the outage answer on every operation", () => {
    for (const { op: o, name } of operations) {
      const hasInput = !!o.requestBody || !!o.parameters?.some((p) => p.in !== "header");
      expect(o.responses["422"]?.description, name).toBe(hasInput ? "Validation error" : undefined);
      expect(o.responses["503"]?.description, name).toMatch(/database cannot be reached/);
    }
  });
});
