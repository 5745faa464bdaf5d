import Link from "next/link";
import type { TaskView } from "@/server/tasks/schemas";
import { absolute } from "./dashboard/ui/format";

const when = (iso: string | null) => absolute(iso) || "—";

export function WatchCard({ task }: { task: TaskView }) {
  const last = task.last_execution;
  const met = last?.result?.condition_met;
  return (
    <article className="card">
      <h2>
        <Link href={`/w/${task.id}`}>{task.name}</Link>
      </h2>
      <p className="muted">{task.condition_description}</p>
      <p>
        <span className={`badge${met ? " met" : ""}`}>{met ? "condition met" : task.state}</span>{" "}
        <span className="muted">
          by @{task.owner?.username ?? "unknown"} · {task.subscriber_count} forks · {task.view_count} views · last checked{" "}
          {when(last?.completed_at ?? null)}
        </span>
      </p>
    </article>
  );
}

export { when };
