/**
 * Upgrading a database that has history: the migrations before findings and the channel registry are applied, rows
 * are written in their old shapes (a watch confirmed twice, one held back, one retracted, one never met, one failing;
 * an email and a webhook channel and their sends), then the rest are applied. The backfill must give each watch its
 * findings, latest answers and failure streak, each channel its config document and each failed send its class, with
 * nothing lost.
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteExtensions } from "@/server/db";

const dir = path.resolve(import.meta.dirname, "../../prisma/migrations");
const migrations = fs
  .readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const FIRST_NEW = migrations.findIndex((m) => m.endsWith("_findings"));
const apply = async (names: string[]) => {
  for (const name of names) await db.exec(fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
};

let db: PGlite;
const ids = {
  user: "00000000-0000-4000-8000-000000000001",
  confirmed: "00000000-0000-4000-8000-0000000000a1",
  held: "00000000-0000-4000-8000-0000000000a2",
  retracted: "00000000-0000-4000-8000-0000000000a3",
  quiet: "00000000-0000-4000-8000-0000000000a4",
  failing: "00000000-0000-4000-8000-0000000000a5",
};
const run = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, "0")}`;
const at = (minutes: number) => new Date(Date.UTC(2026, 10, 1, 9, minutes)).toISOString();
const SOURCES = JSON.stringify([{ url: "https://www.apple.com/newsroom/x", title: "Apple Newsroom" }]);

async function execution(
  id: string,
  taskId: string,
  minutes: number,
  e: { met: boolean; answer: string; notification?: object; gate?: object; retractedBy?: string; failed?: boolean },
) {
  await db.query(
    `INSERT INTO executions (id, task_id, status, condition_met, started_at, completed_at, created_at, result,
                             notification, grounding_sources, retracted_by_execution_id)
     VALUES ($1, $2, $9::"ExecutionStatus", $3, $4, $4, $4, $5, $6, $7, $8)`,
    [
      id,
      taskId,
      e.failed ? null : e.met,
      at(minutes),
      e.failed ? null : JSON.stringify({ condition_met: e.met, answer: e.answer, ...(e.gate ? { gate: e.gate } : {}) }),
      e.notification ? JSON.stringify(e.notification) : null,
      SOURCES,
      e.retractedBy ?? null,
      e.failed ? "failed" : "success",
    ],
  );
}

beforeAll(async () => {
  expect(FIRST_NEW).toBeGreaterThan(0);
  db = await PGlite.create({ extensions: await pgliteExtensions() });
  await apply(migrations.slice(0, FIRST_NEW));

  await db.query(`INSERT INTO users (id, clerk_user_id, email) VALUES ($1, 'user_old', 'old@example.com')`, [ids.user]);
  for (const [name, id] of Object.entries(ids).filter(([k]) => k !== "user"))
    await db.query(
      `INSERT INTO tasks (id, user_id, name, search_query, condition_description) VALUES ($1, $2, $3, $3, $3)`,
      [id, ids.user, name],
    );
  const found = { title: "iPhone 18 date announced", message: "September 9" };
  // Found, then found again by a later run (which did not notify), then a run that did not meet it.
  await execution(run(1), ids.confirmed, 0, { met: true, answer: "Announced: September 9.", notification: found });
  await execution(run(2), ids.confirmed, 10, { met: true, answer: "Still September 9, per Apple." });
  await execution(run(3), ids.confirmed, 20, { met: false, answer: "Nothing new." });
  await db.query(`UPDATE tasks SET notified_execution_id = $1, notified_finding_key = 'iphone-18-date' WHERE id = $2`, [
    run(1),
    ids.confirmed,
  ]);
  // Met, but held back by the owner's bounds.
  await execution(run(4), ids.held, 0, {
    met: true,
    answer: "A rumour says September.",
    gate: { passed: false, reason: "1 independent source, 2 required" },
  });
  // Found, then withdrawn by the next run.
  await execution(run(6), ids.retracted, 5, { met: false, answer: "The date was withdrawn." });
  await execution(run(5), ids.retracted, 0, {
    met: true,
    answer: "Launch on 1 May.",
    notification: { title: "Launch date set" },
    retractedBy: run(6),
  });
  await execution(run(7), ids.quiet, 0, { met: false, answer: "Not yet." });
  // Answered once (in Markdown), then failed twice.
  await execution(run(8), ids.failing, 0, {
    met: false,
    answer: "## Status\n**No**: see [the notes](https://example.com/n). The beta has no date yet.",
  });
  await execution(run(9), ids.failing, 10, { met: false, answer: "", failed: true });
  await execution(run(10), ids.failing, 20, { met: false, answer: "", failed: true });
  // The finding's notice: the email arrived, the webhook failed its last attempt.
  for (const [type, attempt, status, error] of [
    ["email", 1, "sent", null],
    ["webhook", 1, "failed", "HTTP 500"],
    ["webhook", 2, "failed", "connect ECONNREFUSED 203.0.113.5:443"],
    ["webhook", 3, "failed", "HTTP 410"],
  ] as const)
    await db.query(
      `INSERT INTO notification_sends (id, user_id, task_id, execution_id, event, recipient, notification_type, status,
                                       error_message, attempt, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'task.condition_met', 'x', $4::"NotificationType", $5::"SendStatus", $6, $7, $8)`,
      [ids.user, ids.confirmed, run(1), type, status, error, attempt, at(attempt)],
    );

  await db.query(
    `INSERT INTO task_notifications (id, task_id, type, address) VALUES (gen_random_uuid(), $1, 'email', 'old@example.com')`,
    [ids.confirmed],
  );
  await db.query(
    `INSERT INTO task_notifications (id, task_id, type, url, method, headers)
     VALUES (gen_random_uuid(), $1, 'webhook', 'https://example.com/hook', 'PUT', '{"Authorization": "Bearer s3cret"}')`,
    [ids.confirmed],
  );

  await apply(migrations.slice(FIRST_NEW));
});

afterAll(async () => {
  await db?.close();
});

const findingsOf = async (taskId: string) =>
  (
    await db.query<Record<string, unknown>>(
      `SELECT key, title, answer, status, gate_reason, confirmations, first_execution_id, last_execution_id,
              first_found_at, last_confirmed_at, retracted_at, sources
         FROM findings WHERE task_id = $1 ORDER BY first_found_at`,
      [taskId],
    )
  ).rows;

describe("upgrading a database with history", () => {
  it("gives a watch found and found again one finding, confirmed twice, under the key it was notified by", async () => {
    expect(await findingsOf(ids.confirmed)).toEqual([
      {
        key: "iphone-18-date",
        title: "iPhone 18 date announced",
        answer: "Still September 9, per Apple.",
        status: "notified",
        gate_reason: null,
        confirmations: 2,
        first_execution_id: run(1),
        last_execution_id: run(2),
        first_found_at: new Date(at(0)),
        last_confirmed_at: new Date(at(10)),
        retracted_at: null,
        sources: JSON.parse(SOURCES),
      },
    ]);
  });

  it("keeps a held-back finding held, with why; a retracted one retracted, when; and none for a watch never met", async () => {
    expect(await findingsOf(ids.held)).toMatchObject([
      { key: `held-${run(4)}`, status: "held", gate_reason: "1 independent source, 2 required", confirmations: 1 },
    ]);
    expect(await findingsOf(ids.retracted)).toMatchObject([
      { key: "launch date set", status: "retracted", retracted_at: new Date(at(5)), last_execution_id: run(5) },
    ]);
    expect(await findingsOf(ids.quiet)).toEqual([]);
  });

  it("gives each watch its latest answers, what is held back, its failure streak, and its findings as seen", async () => {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT id, latest_answer, latest_answer_at, public_answer, public_answer_at, held_reason, failure_streak,
              failing_since, finding_at, seen_at IS NOT NULL AS seen, delivery_failed
         FROM tasks ORDER BY id`,
    );
    const byId = Object.fromEntries(rows.map(({ id, ...r }) => [id, r]));
    expect(byId[ids.confirmed]).toMatchObject({
      latest_answer: "Nothing new.",
      public_answer: "Nothing new.",
      latest_answer_at: new Date(at(20)),
      held_reason: null,
      failure_streak: 0,
      finding_at: new Date(at(0)),
      seen: true,
      delivery_failed: true,
    });
    expect(byId[ids.held]).toMatchObject({
      latest_answer: "A rumour says September.",
      public_answer: null,
      public_answer_at: null,
      held_reason: "1 independent source, 2 required",
    });
    expect(byId[ids.retracted]).toMatchObject({
      finding_at: new Date(at(5)),
      latest_answer: "The date was withdrawn.",
    });
    expect(byId[ids.quiet]).toMatchObject({ finding_at: null, seen: false, delivery_failed: false });
    expect(byId[ids.failing]).toMatchObject({
      latest_answer: "No: see the notes.",
      latest_answer_at: new Date(at(0)),
      failure_streak: 2,
      failing_since: new Date(at(10)),
    });
  });

  it("classes every send that did not arrive", async () => {
    const { rows } = await db.query<{ attempt: number; failure: string | null }>(
      `SELECT attempt, failure::text AS failure FROM notification_sends WHERE notification_type = 'webhook' ORDER BY attempt`,
    );
    expect(rows).toEqual([
      { attempt: 1, failure: "unreachable" },
      { attempt: 2, failure: "unreachable" },
      { attempt: 3, failure: "refused" },
    ]);
    expect((await db.query(`SELECT failure FROM notification_sends WHERE notification_type = 'email'`)).rows).toEqual([
      { failure: null },
    ]);
  });

  it("moves every channel's columns into its config document", async () => {
    const rows = (
      await db.query<{ type: string; config: unknown }>(
        `SELECT type, config FROM task_notifications WHERE task_id = $1 ORDER BY type`,
        [ids.confirmed],
      )
    ).rows;
    expect(rows).toEqual([
      { type: "email", config: { address: "old@example.com" } },
      {
        type: "webhook",
        config: { url: "https://example.com/hook", method: "PUT", headers: { Authorization: "Bearer s3cret" } },
      },
    ]);
  });
});
