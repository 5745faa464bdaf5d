/** What each event says, in an email (and its subject): a finding, its retraction, a failing watch, its recovery. */
import { db } from "../db";
import { executionView } from "../tasks/views";
import type { Delivery } from "./deliveries";
import type { Notice } from "./events";
import type { Source } from "../tasks/schemas";

export type Content = {
  subject: string;
  title: string;
  answer: string;
  evidence: string;
  sources: Source[];
};

const WHAT_TO_DO =
  "What to do: if the error names a key, a setting or an address, fix it (the watch page says more). A provider that " +
  "is down or rate limited recovers by itself: the watch keeps retrying, at most every 3 hours, and you will get one " +
  "email when a check succeeds again. You can also pause the watch.";

export async function noticeContent(notice: Notice, d: Delivery): Promise<Content> {
  const e = executionView(d.execution);
  const name = d.task.name;
  switch (notice.event) {
    case "task.condition_met": {
      const title = e.notification?.title ?? `Condition met: ${name}`;
      return {
        subject: title,
        title,
        answer: e.notification?.markdown || e.result?.answer || "",
        evidence: e.result?.evidence ?? "",
        sources: e.grounding_sources ?? [],
      };
    }
    case "task.condition_retracted": {
      const retracted = await db.execution.findUnique({
        where: { id: notice.retracted_execution_id },
        select: { notification: true, completed_at: true },
      });
      const was = (retracted?.notification as { title?: string } | null)?.title ?? "the last finding";
      const when = retracted?.completed_at ? ` on ${retracted.completed_at.toISOString().slice(0, 10)}` : "";
      return {
        subject: `Retracted: ${was}`,
        title: `Retracted: ${was}`,
        answer: `What you were told${when} no longer holds: it was withdrawn, corrected or denied.\n\n${e.result?.answer ?? ""}`,
        evidence: e.result?.evidence ?? "",
        sources: e.grounding_sources ?? [],
      };
    }
    case "task.run_failed":
      return {
        subject: `Your watch “${name}” keeps failing`,
        title: `The last ${notice.consecutive_failures} checks of “${name}” failed`,
        answer: `The latest error:\n\n> ${(e.error_message ?? "unknown").replace(/\n/g, " ")}\n\n${WHAT_TO_DO}`,
        evidence: "",
        sources: [],
      };
    case "account.budget_exhausted":
      return {
        subject: "Your watches paused for this month: the monthly checks are used up",
        title: `All ${notice.runs_limit} checks of this month are used`,
        answer:
          `Your watches run again on ${notice.resumes_at.slice(0, 10)} (UTC), each at its first check of the new month; ` +
          `“${name}” was the first to wait. Until then Run now and previews are refused too. Settings in the dashboard shows ` +
          "which watches ran most; pausing some, or letting the agent check them less often, keeps next month within the budget.",
        evidence: "",
        sources: [],
      };
    case "task.run_recovered":
      return {
        subject: `Your watch “${name}” is working again`,
        title: `“${name}” checked successfully again`,
        answer: e.result?.answer ?? "",
        evidence: e.result?.evidence ?? "",
        sources: e.grounding_sources ?? [],
      };
  }
}
