/** A public watch in a list (home, explore, a user's page): its verdict first, then what it watches and who follows. */
import Link from "next/link";
import { plural } from "@/server/render/dates";
import type { Audience } from "@/server/public/service";
import type { TaskView } from "@/server/tasks/schemas";
import { Markdown } from "./markdown";
import { VerdictPill } from "./pill";
import { Time } from "./time";

export function WatchCard({
  task,
  audience,
  showOwner = true,
}: {
  task: TaskView;
  audience?: Audience;
  showOwner?: boolean;
}) {
  const r = task.resolution;
  const found = r.status !== "watching" && r.since;
  const checked = task.last_execution?.completed_at ?? null;
  return (
    <article className="card watch-card">
      <div className="row">
        <VerdictPill status={r.status} />
        <span className="muted small">
          {found ? (
            <>
              Found <Time iso={r.since} format="date" />
            </>
          ) : checked ? (
            <>
              Checked <Time iso={checked} />
            </>
          ) : (
            "Not checked yet"
          )}
        </span>
      </div>
      <h2 className="card-title">
        <Link href={`/w/${task.id}`}>{task.name}</Link>
      </h2>
      <p className="condition">{task.condition_description}</p>
      {found && r.answer ? <Markdown className="clamp" text={r.answer} /> : null}
      <div className="meta">
        {showOwner && task.owner?.username ? <span>@{task.owner.username}</span> : null}
        {audience ? (
          <>
            <span>{plural(audience.following, "following", "following")}</span>
            {audience.forks ? <span>{plural(audience.forks, "fork")}</span> : null}
          </>
        ) : null}
        <span>{plural(task.view_count, "view")}</span>
      </div>
    </article>
  );
}
