/**
 * One finding: what the agent found, when it first found it and how often later checks confirmed it ("First found
 * 26 Nov · confirmed 3×, last 3 Dec"), its answer and sources. Held and retracted ones say so; the public pages are
 * given notified and retracted findings only.
 */
import { findingAnchor } from "@/server/tasks/findings";
import type { FindingView } from "@/server/tasks/schemas";
import { Markdown, Sources } from "./markdown";
import { Pill } from "./pill";
import { Time } from "./time";

/** `inVerdict`: the verdict above already shows this finding's answer and sources; the card only dates it. */
export function FindingCard({
  finding: f,
  anchor,
  inVerdict,
}: {
  finding: FindingView;
  anchor: string;
  inVerdict?: boolean;
}) {
  return (
    <article className="card finding" id={anchor} data-status={f.status} data-testid="finding">
      <div className="spread section-title">
        <h3>
          {f.status === "retracted" ? "Retracted: " : ""}
          {f.title}
        </h3>
        {f.status === "held" ? (
          <Pill tone="warn" testId="held">
            held: {f.gate_reason}
          </Pill>
        ) : f.status === "retracted" ? (
          <Pill tone="warn" testId="retracted">
            retracted <Time iso={f.retracted_at} format="date" />
          </Pill>
        ) : null}
      </div>
      <p className="meta small muted" data-testid="finding-dates">
        <span>
          First found <Time iso={f.first_found_at} format="date" />
        </span>
        {f.confirmations > 1 ? (
          <span>
            confirmed {f.confirmations}×, last <Time iso={f.last_confirmed_at} format="date" />
          </span>
        ) : null}
      </p>
      {inVerdict ? (
        <p className="muted small">The answer and its sources are in the verdict above.</p>
      ) : (
        <>
          <Markdown text={f.answer} />
          <Sources sources={f.sources} newTab />
        </>
      )}
    </article>
  );
}

/**
 * A watch's findings, newest first, each at its own anchor (feeds and emails link to it); `empty` when none. The
 * finding a met verdict stands on is not shown twice: its card only dates it.
 */
export function FindingsSection({
  taskId,
  findings,
  empty,
  met,
}: {
  taskId: string;
  findings: FindingView[];
  empty: string;
  /** The verdict above is met or resolved (it shows the standing finding, the newest notified one). */
  met?: boolean;
}) {
  const standing = met ? findings.find((f) => f.status === "notified")?.key : undefined;
  return (
    <section aria-labelledby="findings-title" className="section">
      <h2 id="findings-title">Findings</h2>
      {findings.length ? (
        <div className="stack">
          {findings.map((f) => (
            <FindingCard key={f.key} finding={f} anchor={findingAnchor(taskId, f.key)} inVerdict={f.key === standing} />
          ))}
        </div>
      ) : (
        <p className="muted">{empty}</p>
      )}
    </section>
  );
}
