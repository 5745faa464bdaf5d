/**
 * A watch in a list of cards (home, Explore, a user's page, Following): its verdict in words, the latest answer's first
 * sentence as of its check, then what it watches and who follows.
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { plural } from "@/server/render/dates";
import type { Audience } from "@/server/public/service";
import type { TaskView } from "@/server/tasks/schemas";
import { VerdictPill } from "./pill";
import { Time } from "./time";

/** The dates beside the verdict: when a met one was found, and as of when its answer was checked. */
export function VerdictWhen({ task }: { task: Pick<TaskView, "verdict" | "resolution"> }) {
  const { verdict: v, resolution: r } = task;
  if (v.state === "first_check") return <>{v.running ? "first check running…" : "first check pending"}</>;
  const found =
    (v.state === "met" || v.state === "resolved") && r.since ? (
      <>
        found <Time iso={r.since} format="date" />
      </>
    ) : null;
  if (!v.as_of) return found ?? <>not checked yet</>;
  return (
    <>
      {found ? <>{found} · </> : null}as of <Time iso={v.as_of} />
    </>
  );
}

export function WatchCard({
  task,
  audience,
  showOwner = true,
  meta,
  testId,
  children,
}: {
  task: TaskView;
  audience?: Audience;
  showOwner?: boolean;
  /** More facts for the meta line (Following: since when). */
  meta?: ReactNode;
  testId?: string;
  /** Below the facts: a follow's channels, on Following. */
  children?: ReactNode;
}) {
  return (
    <article className="card watch-card" data-state={task.verdict.state} data-testid={testId}>
      <div className="row">
        <VerdictPill state={task.verdict.state} />
        <span className="muted small">
          <VerdictWhen task={task} />
        </span>
      </div>
      <h2 className="card-title">
        <Link href={`/w/${task.id}`}>{task.name}</Link>
      </h2>
      {task.latest_answer ? (
        <p className="answer-line card-answer" data-testid="latest-answer">
          {task.latest_answer}
        </p>
      ) : null}
      <p className="condition">{task.condition_description}</p>
      <div className="meta">
        {showOwner && task.owner?.username ? <span>@{task.owner.username}</span> : null}
        {audience ? (
          <>
            <span>{plural(audience.following, "following", "following")}</span>
            {audience.forks ? <span>{plural(audience.forks, "fork")}</span> : null}
          </>
        ) : null}
        <span>{plural(task.view_count, "view")}</span>
        {meta}
      </div>
      {children}
    </article>
  );
}
