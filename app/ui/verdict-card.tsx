/**
 * The verdict card: the answer to a watch's question first ("Yes" / "Not yet"), when the agent found it, its answer
 * and sources. The public page leads with it; the owner's page can too (pass `confidence` to say how sure the agent
 * was, and actions as children).
 */
import type { ReactNode } from "react";
import type { Resolution, Source, TaskView } from "@/server/tasks/schemas";
import { sureness } from "../dashboard/ui/format";
import { Markdown, Sources } from "./markdown";
import { VerdictPill } from "./pill";
import { Time } from "./time";

/** The agent's latest answer while a watch is not met yet: what it found so far, as of when, and why it checks next. */
export type LatestAnswer = { at: string; answer: string; sources: Source[]; reason: string };

/** Of a task view, its last answered run (a public view's never a held one), for `VerdictCard`'s `latest`. */
export function latestAnswerOf(task: Pick<TaskView, "last_execution">): LatestAnswer | null {
  const e = task.last_execution;
  if (!e?.result || e.status !== "success" || !e.completed_at) return null;
  return {
    at: e.completed_at,
    answer: e.result.answer,
    sources: e.grounding_sources ?? [],
    reason: e.result.next_run_reason ?? "",
  };
}

export function VerdictCard({
  resolution: r,
  id = "verdict",
  next,
  confidence,
  latest,
  children,
}: {
  resolution: Resolution;
  /** The heading's id (the section is labelled by the status and the heading). */
  id?: string;
  /** While watching: what happens next, e.g. "Next check in 3 hours." */
  next?: ReactNode;
  /** The standing finding's confidence (owner views); shown only for a met or resolved verdict. */
  confidence?: number | null;
  /** While watching: the latest answer, shown "as of" its time with its sources and the reason for the next check. */
  latest?: LatestAnswer | null;
  children?: ReactNode;
}) {
  const found = r.status !== "watching" && r.since;
  const answer = found ? (r.sources.length ? "Yes, per these sources" : "Yes") : "Not yet";
  return (
    <section className="card verdict" data-status={r.status} aria-labelledby={`${id}-status ${id}`}>
      <div className="verdict-head">
        <span id={`${id}-status`}>
          <VerdictPill status={r.status} size="large" />
        </span>
        {found ? (
          <span className="muted small">
            Found <Time iso={r.since} format="date" />
          </span>
        ) : null}
        {found && confidence != null ? <span className="muted small">{sureness(confidence)}</span> : null}
      </div>
      <h2 id={id}>{answer}</h2>
      {found && r.answer ? <Markdown text={r.answer} /> : null}
      {found ? <Sources sources={r.sources} /> : null}
      {r.status === "watching" && latest ? (
        <div className="stack" data-testid="latest-answer">
          <p className="muted small">
            Latest answer, as of <Time iso={latest.at} />
          </p>
          <Markdown text={latest.answer} />
          <Sources sources={latest.sources} />
        </div>
      ) : null}
      {r.status === "watching" ? (
        <p className="muted verdict-foot">
          {latest ? "" : "The agent has not found this yet."}
          {next ? <> {next}</> : null}
          {latest?.reason ? <span className="small block">Why then: {latest.reason}</span> : null}
        </p>
      ) : null}
      {r.status === "resolved" ? (
        <p className="muted verdict-foot">Resolved: the watch is complete and checks no more.</p>
      ) : null}
      {children ? <div className="verdict-foot">{children}</div> : null}
    </section>
  );
}
