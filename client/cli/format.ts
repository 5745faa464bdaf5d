/** How watchctl writes watches, runs and findings for people (--json writes the API's own JSON instead). */
import { channelOf } from "../../channels/list";
import { outcomeOf, type Execution, type Finding, type Task } from "../index";

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (!rows.length) return "(none)\n";
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? "")));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((row) => row[i]!.length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (v.length > widths[i]! ? v.slice(0, widths[i]! - 1) + "…" : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

const outcome = (e: Execution | null | undefined) =>
  e?.status === "cancelled" || e?.status === "pending" ? e.status : outcomeOf(e);

export const TASK_COLUMNS = ["id", "name", "state", "last", "next_run"];
export const taskRow = (t: Task) => ({
  id: t.id,
  name: t.name,
  state: t.state,
  last: outcome(t.last_execution),
  next_run: t.state === "active" ? (t.next_run ?? "") : "",
});

export const EXECUTION_COLUMNS = ["id", "status", "result", "started", "detail"];
export const executionRow = (e: Execution) => ({
  id: e.id,
  status: e.status,
  result: outcome(e),
  started: e.started_at,
  detail: e.error_message ?? e.result?.answer.split("\n")[0] ?? "",
});

/** A finding as text: its title, its standing and dates, its answer. */
export const findingText = (f: Finding) =>
  `${f.title}\n  ${[
    f.status === "held"
      ? `held: ${f.gate_reason} · key ${JSON.stringify(f.key)} (watchctl send <id> <key> sends it anyway)`
      : f.status === "retracted"
        ? `retracted ${f.retracted_at}`
        : f.status,
    `first found ${f.first_found_at}`,
    `confirmed ${f.confirmations}×${f.confirmations > 1 ? `, last ${f.last_confirmed_at}` : ""}`,
  ].join(" · ")}\n  ${f.answer.replaceAll("\n", "\n  ")}\n`;

/** "slack https://hooks.slack.com/…WXYZ": a channel's type and where it goes (secrets as the service shows them). */
export const channelLine = (n: { type: string } & Record<string, unknown>) =>
  `${n.type} ${channelOf(n.type)?.summary(n) ?? ""}`;

export function describeTask(t: Task): string {
  const lines = [
    `${t.name}  (${t.id})`,
    `  query:      ${t.search_query}`,
    `  condition:  ${t.condition_description}`,
    `  state:      ${t.state}${t.is_public ? ", public" : ""}`,
    `  last:       ${outcome(t.last_execution)}${t.last_execution?.completed_at ? ` at ${t.last_execution.completed_at}` : ""}`,
    `  next run:   ${t.state === "active" ? (t.next_run ?? "—") : "—"}`,
    `  notify:     ${t.notifications.map(channelLine).join(", ") || "—"}`,
  ];
  const answer = t.last_execution?.result?.answer;
  if (answer) lines.push("", answer);
  return lines.join("\n") + "\n";
}
