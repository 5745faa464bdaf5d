/** The served OpenAPI document says what each operation really answers (not only that its snapshot is current). */
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/api/openapi";

type Op = { security?: unknown[]; responses: Record<string, { description: string }> };
const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, Op>> };
const op = (method: string, path: string) => doc.paths[path]![method]!;
const describeOf = (method: string, path: string, status: number) =>
  op(method, path).responses[String(status)]?.description;

const PUBLIC = [
  ["get", "/api/v1/public/tasks"],
  ["get", "/api/v1/public/tasks/id/{id}"],
  ["post", "/api/v1/public/waitlist"],
  ["get", "/api/health"],
  ["get", "/api/v1/public/tasks/id/{id}/rss"],
  ["get", "/api/v1/public/tasks/id/{id}/feed.json"],
  ["get", "/api/v1/public/tasks/id/{id}/badge.svg"],
] as const;

describe("OpenAPI document", () => {
  it("gives each operation its own error descriptions", () => {
    expect(describeOf("patch", "/api/v1/users/me/username", 409)).toBe("Username already taken");
    expect(describeOf("post", "/api/v1/public/waitlist", 409)).toBe("Email already on waitlist");
    expect(describeOf("post", "/api/v1/tasks/{id}/execute", 409)).toBe("Task is already running or pending");
    expect(describeOf("get", "/api/health", 503)).toMatch(/^Database unreachable/);
    expect(describeOf("get", "/api/v1/tasks/{id}", 404)).toBe("Task not found");
    // A status an operation never answers is not listed.
    expect(describeOf("get", "/api/v1/tasks", 409)).toBeUndefined();
    expect(describeOf("get", "/api/v1/webhooks/secret", 400)).toBeUndefined();
  });

  it("marks public operations as needing no credentials, and every other one as bearer with a 401", () => {
    for (const [method, path] of PUBLIC) {
      expect(op(method, path).security, `${method} ${path}`).toBeUndefined();
      expect(op(method, path).responses["401"], `${method} ${path}`).toBeUndefined();
    }
    const isPublic = (m: string, p: string) =>
      PUBLIC.some(([pm, pp]) => pm === m && pp === p) ||
      p.startsWith("/api/v1/email/") ||
      p.startsWith("/api/v1/public/");
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, o] of Object.entries(item)) {
        if (isPublic(method, path)) continue;
        expect(o.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
        expect(o.responses["401"]?.description, `${method} ${path}`).toBe("Missing, invalid or expired credentials");
      }
  });

  it("documents conditional GET (ETag, 304) on the feeds, the badge and the public watch", () => {
    for (const suffix of ["", "/rss", "/feed.json", "/badge.svg"]) {
      const o = op("get", `/api/v1/public/tasks/id/{id}${suffix}`) as Op & {
        parameters: { name: string }[];
        responses: Record<string, { headers?: object }>;
      };
      expect(o.responses["304"]?.description, suffix).toMatch(/^Not Modified/);
      expect(Object.keys(o.responses["200"]?.headers ?? {}), suffix).toEqual(["ETag", "Cache-Control"]);
      expect(
        o.parameters.map((p) => p.name),
        suffix,
      ).toContain("If-None-Match");
    }
  });

  it("documents the validation list and the outage answer on every operation", () => {
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, o] of Object.entries(item)) {
        expect(o.responses["422"]?.description, `${method} ${path}`).toBe("Validation error");
        expect(o.responses["503"]?.description, `${method} ${path}`).toMatch(/database cannot be reached/);
      }
  });
});
