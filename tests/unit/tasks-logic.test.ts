/** Pure pieces of the watch API: the state machine, scrubbing of non-owner views, the 422 error mapping and what counts as a database outage. */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { validationDetails } from "@/server/api/errors";
import { Prisma } from "@/server/db";
import { isDatabaseUnavailable } from "@/server/db/availability";
import { checkTransition } from "@/server/tasks/service";
import { ownerTaskView, publicTaskView, resolutionOf, type TaskRow } from "@/server/tasks/views";

describe("state machine", () => {
  it("allows the listed transitions and same-state no-ops, rejects the rest with the spec text", () => {
    for (const [from, to] of [
      ["active", "paused"],
      ["paused", "active"],
      ["active", "completed"],
      ["completed", "active"],
      ["paused", "paused"],
    ] as const)
      expect(() => checkTransition(from, to)).not.toThrow();
    expect(() => checkTransition("paused", "completed")).toThrow("Invalid state transition: paused -> completed");
    expect(() => checkTransition("completed", "paused")).toThrow("Invalid state transition: completed -> paused");
  });
});

describe("views", () => {
  const row: TaskRow = {
    id: "t1",
    user_id: "u1",
    name: "n",
    search_query: "q",
    condition_description: "c",
    state: "active",
    next_run: new Date("2026-01-01T00:00:00Z"),
    is_public: true,
    view_count: 3,
    subscriber_count: 1,
    forked_from_task_id: null,
    last_known_state: { secret: "s" },
    last_execution_id: null,
    last_execution: null,
    notified_execution: null,
    min_confidence: 0.6,
    min_sources: 1,
    min_interval_minutes: null,
    max_interval_minutes: null,
    notified_finding_key: null,
    notified_execution_id: null,
    failure_notified: false,
    failure_streak: 0,
    failing_since: null,
    latest_answer: "The owner's answer.",
    latest_answer_at: new Date("2026-01-01T00:00:00Z"),
    public_answer: "The public answer.",
    public_answer_at: new Date("2025-12-31T00:00:00Z"),
    held_reason: "1 independent source, 2 required",
    finding_at: new Date("2026-01-01T00:00:00Z"),
    seen_at: null,
    answered_execution_id: null,
    delivery_failed: false,
    state_changed_at: new Date("2026-01-01T00:00:00Z"),
    created_at: new Date("2026-01-01T00:00:00Z"),
    updated_at: null,
    user: { username: "alice" },
    notifications: [
      {
        id: "n1",
        task_id: "t1",
        type: "email",
        config: { address: "a@example.com" },
        created_at: new Date(),
      },
      {
        id: "n2",
        task_id: "t1",
        type: "webhook",
        config: { url: "https://h.example.com", method: "PUT", headers: { a: "1" } },
        created_at: new Date(),
      },
    ],
  };

  it("gives the owner everything, with derived address fields", () => {
    expect(ownerTaskView(row)).toMatchObject({
      user_id: "u1",
      notification_email: "a@example.com",
      webhook_url: "https://h.example.com",
      notifications: [
        { type: "email", address: "a@example.com" },
        { type: "webhook", url: "https://h.example.com", method: "PUT", headers: { a: "1" } },
      ],
      last_known_state: { secret: "s" },
      next_run: "2026-01-01T00:00:00.000Z",
      latest_answer: "The owner's answer.",
      unseen: true,
      delivery_failed: false,
      verdict: { state: "held", reason: "1 independent source, 2 required", as_of: "2026-01-01T00:00:00.000Z" },
    });
    expect(ownerTaskView(row)).not.toHaveProperty("owner");
    expect(ownerTaskView({ ...row, seen_at: new Date("2026-01-02T00:00:00Z") }).unseen).toBe(false);
  });

  it("scrubs owner identity and channels for everyone else", () => {
    expect(publicTaskView(row)).toMatchObject({
      user_id: null,
      notifications: [],
      notification_email: null,
      webhook_url: null,
      last_known_state: null,
      owner: { username: "alice" },
      // Never what the owner's bounds held back: the answer before it, and the verdict without it.
      latest_answer: "The public answer.",
      verdict: { state: "not_yet", reason: null, as_of: "2025-12-31T00:00:00.000Z" },
    });
    expect(publicTaskView(row)).not.toHaveProperty("unseen");
    expect(publicTaskView(row)).not.toHaveProperty("answered");
    expect(publicTaskView(row)).not.toHaveProperty("delivery_failed");
  });
});

describe("resolution (the verdict)", () => {
  const finding = {
    retracted_by_execution_id: null,
    completed_at: new Date("2026-11-02T09:30:00Z"),
    created_at: new Date("2026-11-02T09:29:00Z"),
    result: { condition_met: true, answer: "Yes: **Beta 1** is out.", confidence: 0.9 },
    grounding_sources: [{ url: "https://www.postgresql.org/about/news/", title: "PostgreSQL" }],
  };

  it("is watching without a notified finding, met while it stands, resolved once the watch is completed with it", () => {
    const watching = { status: "watching", since: null, answer: null, sources: [] };
    expect(resolutionOf({ state: "active", notified_execution: null })).toEqual(watching);
    expect(resolutionOf({ state: "completed", notified_execution: null })).toEqual(watching);
    const met = {
      since: "2026-11-02T09:30:00.000Z",
      answer: "Yes: **Beta 1** is out.",
      // Each source with its site, as every view gives it.
      sources: [{ ...finding.grounding_sources[0], domain: "postgresql.org" }],
    };
    expect(resolutionOf({ state: "active", notified_execution: finding })).toEqual({ status: "met", ...met });
    expect(resolutionOf({ state: "paused", notified_execution: finding })).toEqual({ status: "met", ...met });
    expect(resolutionOf({ state: "completed", notified_execution: finding })).toEqual({ status: "resolved", ...met });
  });

  it("goes back to watching when the finding is retracted", () => {
    const retracted = { ...finding, retracted_by_execution_id: "e2" };
    expect(resolutionOf({ state: "active", notified_execution: retracted }).status).toBe("watching");
    expect(resolutionOf({ state: "completed", notified_execution: retracted }).status).toBe("watching");
  });
});

describe("422 mapping", () => {
  const schema = z
    .object({
      id: z.guid(),
      name: z.string().max(3),
      state: z.enum(["a", "b"]),
      n: z.number().int().min(1),
      flag: z.boolean(),
    })
    .strict();
  const locate = (f: string | undefined) => (f === "id" ? "path" : "body");

  it("maps zod issues to FastAPI-style details", () => {
    const input = { id: "x", name: "long", state: "c", n: 0, flag: "yes", extra: 1 };
    const r = schema.safeParse(input);
    const details = validationDetails(r.error!.issues, input, locate);
    const byField = Object.fromEntries(details.map((d) => [d.loc.join("."), d]));
    expect(byField["path.id"]).toEqual({
      type: "uuid_parsing",
      loc: ["path", "id"],
      msg: "Input should be a valid UUID",
      input: "x",
    });
    expect(byField["body.name"]).toMatchObject({ type: "string_too_long", input: "long" });
    expect(byField["body.state"]).toEqual({
      type: "enum",
      loc: ["body", "state"],
      msg: "Input should be 'a' or 'b'",
      input: "c",
    });
    expect(byField["body.n"]).toMatchObject({
      type: "greater_than_equal",
      msg: "Input should be greater than or equal to 1",
    });
    expect(byField["body.flag"]).toMatchObject({ type: "bool_type", input: "yes" });
    expect(byField["body.extra"]).toMatchObject({ type: "extra_forbidden", input: 1 });
  });

  it("reports missing fields with the parent object as input", () => {
    const r = schema.safeParse({});
    const details = validationDetails(r.error!.issues, {}, locate);
    expect(details.find((d) => d.loc[1] === "name")).toEqual({
      type: "missing",
      loc: ["body", "name"],
      msg: "Field required",
      input: {},
    });
  });
});

describe("database availability (503 instead of 500)", () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
  it("recognises an unreachable or restarting database from Prisma or node-postgres", () => {
    expect(
      isDatabaseUnavailable(
        new Prisma.PrismaClientKnownRequestError("Can't reach database server", { code: "P1001", clientVersion: "7" }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"))).toBe(true);
    expect(isDatabaseUnavailable(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isDatabaseUnavailable(withCode("the database system is starting up", "57P03"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
  });
  it("leaves bugs and other services' failures as they are", () => {
    expect(
      isDatabaseUnavailable(
        new Prisma.PrismaClientKnownRequestError("Unique constraint failed", { code: "P2002", clientVersion: "7" }),
      ),
    ).toBe(false);
    expect(isDatabaseUnavailable(withCode('relation "tasks" does not exist', "42P01"))).toBe(false);
    expect(
      isDatabaseUnavailable(new TypeError("fetch failed", { cause: withCode("connect ECONNREFUSED", "ECONNREFUSED") })),
    ).toBe(false);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
  });
});
