/**
 * The verdict card: the answer to a watch's question first, in one state that never disguises another (Met, Not yet,
 * Found, not sent, Paused, Can't check, First check, Resolved), with when, the answer and its sources. The public page
 * leads with it; so does the owner's page, which passes how sure the agent was and the state's actions.
 */
import type { ReactNode } from "react";
import type { Resolution, Source, TaskView } from "@/server/tasks/schemas";
import type { Verdict } from "@/server/tasks/verdict";
import { sureness } from "../dashboard/ui/format";
import { Markdown, Sources } from "./markdown";
import { VerdictPill } from "./pill";
import { Time } from "./time";

/** The agent's latest answer: what it found so far, as of when, and why it checks next. */
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

/** The answer to the question, as a heading: what a person wants to read first. */
function headline(v: Verdict, r: Resolution): string {
  switch (v.state) {
    case "met":
    case "resolved":
      return r.sources.length ? "Yes, per these sources" : "Yes";
    case "not_yet":
      return "No, not yet";
    case "held":
      return "Yes, but nobody was told yet";
    case "paused":
      return "Not checking";
    case "cant_check":
      return v.failure === "yours" ? "Checks fail: the watch needs a change" : "Checks are failing; Watch is retrying";
    case "first_check":
      return v.running ? "First check running…" : "First check pending";
  }
}

/** The date beside the state: when it was found, paused, started failing, last checked. */
function When({ v, r }: { v: Verdict; r: Resolution }) {
  switch (v.state) {
    case "met":
    case "resolved":
      return r.since ? (
        <>
          Found <Time iso={r.since} format="date" />
        </>
      ) : null;
    case "held":
      return v.since ? (
        <>
          Found <Time iso={v.since} />
        </>
      ) : null;
    case "paused":
      return v.since ? (
        <>
          since <Time iso={v.since} />
        </>
      ) : null;
    case "cant_check":
      return v.since ? (
        <>
          Failing since <Time iso={v.since} />
        </>
      ) : null;
    case "first_check":
      return v.since ? (
        <>
          Started <Time iso={v.since} />
        </>
      ) : null;
    case "not_yet":
      return v.as_of ? (
        <>
          Checked <Time iso={v.as_of} />
        </>
      ) : null;
  }
}

/** An answer that is not the verdict itself: said "as of" its check, with its sources. */
function AsOf({ latest, label = "Latest answer" }: { latest: LatestAnswer; label?: string }) {
  return (
    <div className="stack" data-testid="latest-answer">
      <p className="muted small">
        {label}, as of <Time iso={latest.at} />
      </p>
      <Markdown text={latest.answer} />
      <Sources sources={latest.sources} />
    </div>
  );
}

/** What the card says under its heading, per state. */
function Body({
  v,
  r,
  latest,
  next,
  owner,
}: {
  v: Verdict;
  r: Resolution;
  latest: LatestAnswer | null;
  next?: ReactNode;
  owner: boolean;
}) {
  const finding =
    r.status !== "watching" ? (
      <>
        {r.answer ? <Markdown text={r.answer} /> : null}
        <Sources sources={r.sources} />
      </>
    ) : null;
  switch (v.state) {
    case "met":
      return finding;
    case "resolved":
      return (
        <>
          {finding}
          <p className="muted verdict-foot">Resolved: the watch is complete and checks no more.</p>
        </>
      );
    case "held":
      return (
        <>
          <p className="verdict-reason" data-testid="verdict-held">
            {owner ? "Your" : "Its"} bounds held it back ({v.reason}). A later check that clears them sends it.
          </p>
          {latest ? <AsOf latest={latest} label="What it found" /> : null}
        </>
      );
    case "paused":
      return latest ? (
        <AsOf latest={latest} label="Last answer" />
      ) : (
        <p className="muted">It was paused before its first check.</p>
      );
    case "cant_check":
      return (
        <>
          <p className="verdict-reason" data-testid="verdict-failure">
            {v.reason ?? "Its checks are failing at the moment."}{" "}
            {v.failure === "ours" ? (
              v.retry_at ? (
                <>
                  Nothing to do on your side: Watch retries at <Time iso={v.retry_at} format="clock" />.
                </>
              ) : (
                "Nothing to do on your side: Watch retries by itself."
              )
            ) : null}
          </p>
          {latest ? <AsOf latest={latest} label="Last answer" /> : null}
        </>
      );
    case "first_check":
      return (
        <p className="muted">
          {v.running
            ? "The agent is searching the web now; its answer appears here when it is done."
            : "The first check is queued and starts shortly."}
        </p>
      );
    case "not_yet":
      return (
        <>
          {latest ? <AsOf latest={latest} /> : null}
          {next || latest?.reason ? (
            <p className="muted verdict-foot">
              {next}
              {latest?.reason ? <span className="small block">Why then: {latest.reason}</span> : null}
            </p>
          ) : null}
        </>
      );
  }
}

export function VerdictCard({
  verdict: v,
  resolution: r,
  id = "verdict",
  next,
  confidence,
  latest = null,
  owner = false,
  actions,
  children,
}: {
  verdict: Verdict;
  resolution: Resolution;
  /** The heading's id (the section is labelled by the state and the heading). */
  id?: string;
  /** Not met yet: what happens next, e.g. "Next check in 3 hours." */
  next?: ReactNode;
  /** The standing finding's confidence (owner views); shown only for a met or resolved verdict. */
  confidence?: number | null;
  /** The latest answer, shown "as of" its time where the verdict is not the answer itself. */
  latest?: LatestAnswer | null;
  /** The owner's page: the held reason says "your bounds". */
  owner?: boolean;
  /** The state's own actions (the owner's: Resume, Retry now, Change bounds…), under the body. */
  actions?: ReactNode;
  /** Under everything: where it was sent. */
  children?: ReactNode;
}) {
  const found = v.state === "met" || v.state === "resolved";
  return (
    <section className="card verdict" data-state={v.state} aria-labelledby={`${id}-status ${id}`}>
      <div className="verdict-head">
        <span id={`${id}-status`}>
          <VerdictPill state={v.state} size="large" />
        </span>
        <span className="muted small">
          <When v={v} r={r} />
        </span>
        {found && confidence != null ? <span className="muted small">{sureness(confidence)}</span> : null}
      </div>
      <h2 id={id}>{headline(v, r)}</h2>
      <Body v={v} r={r} latest={latest} next={next} owner={owner} />
      {actions ? <div className="row verdict-actions">{actions}</div> : null}
      {children ? <div className="verdict-foot">{children}</div> : null}
    </section>
  );
}
