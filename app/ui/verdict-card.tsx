/**
 * The verdict card: the answer to a watch's question first ("Yes" / "Not yet"), when the agent found it, its answer
 * and sources. The public page leads with it; the owner's page can too (pass `confidence` to say how sure the agent
 * was, and actions as children).
 */
import type { ReactNode } from "react";
import type { Resolution } from "@/server/tasks/schemas";
import { sureness } from "../dashboard/ui/format";
import { Markdown, Sources } from "./markdown";
import { VerdictPill } from "./pill";
import { Time } from "./time";

export function VerdictCard({
  resolution: r,
  id = "verdict",
  next,
  confidence,
  children,
}: {
  resolution: Resolution;
  /** The heading's id (the section is labelled by the status and the heading). */
  id?: string;
  /** While watching: what happens next, e.g. "Next check in 3 hours." */
  next?: ReactNode;
  /** The standing finding's confidence (owner views); shown only for a met or resolved verdict. */
  confidence?: number | null;
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
      {r.status === "watching" ? (
        <p className="muted verdict-foot">The agent has not found this yet.{next ? <> {next}</> : null}</p>
      ) : null}
      {r.status === "resolved" ? (
        <p className="muted verdict-foot">Resolved: the watch is complete and checks no more.</p>
      ) : null}
      {children ? <div className="verdict-foot">{children}</div> : null}
    </section>
  );
}
