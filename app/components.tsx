import Link from "next/link";
import { renderMarkdown, sourceHref, USER_CONTENT_REL } from "@/server/render/markdown";
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
          by @{task.owner?.username ?? "unknown"} · {task.subscriber_count} following · {task.view_count} views · last
          checked {when(last?.completed_at ?? null)}
        </span>
      </p>
    </article>
  );
}

/** An agent's markdown answer, through the one sanitizing renderer. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return <div className={className} dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

/** The agent's sources: http(s) ones are links, anything else is shown as text only. */
export function Sources({ sources, newTab }: { sources: { url: string; title: string }[]; newTab?: boolean }) {
  return (
    <ul className="sources" aria-label="Sources">
      {sources.map((s) => {
        const href = sourceHref(s.url);
        return (
          <li key={s.url}>
            {href ? (
              <a href={href} rel={USER_CONTENT_REL} target={newTab ? "_blank" : undefined}>
                {s.title || s.url}
              </a>
            ) : (
              s.title || s.url
            )}
          </li>
        );
      })}
    </ul>
  );
}

export { when };
