/** The verdict card that leads a public watch's page, and the snippets that embed its badge elsewhere (CONTRACT §10). */
import type { TaskView } from "@/server/tasks/schemas";
import { verdictLabel, verdictSentence } from "@/server/public/verdict";
import { Markdown, Sources, when } from "../../components";
import { CopyButton } from "../../dashboard/ui/actions";

const STATUS_WORD = { watching: "Watching", met: "Met", resolved: "Resolved" } as const;

function nextStep(task: TaskView) {
  if (task.next_run) return `Next check: ${when(task.next_run)}.`;
  return { active: "A check is under way.", paused: "The watch is paused.", completed: "The watch is complete." }[
    task.state
  ];
}

export function VerdictCard({ task }: { task: TaskView }) {
  const r = task.resolution;
  return (
    <section className={`card verdict verdict-${r.status}`} aria-labelledby="verdict">
      <h2 id="verdict">
        <span className={`badge verdict-${r.status}`}>{STATUS_WORD[r.status]}</span>{" "}
        <span>{r.sources.length ? `${verdictSentence(r)}, per these sources` : verdictSentence(r)}</span>
      </h2>
      {r.answer ? <Markdown className="answer" text={r.answer} /> : null}
      {r.sources.length ? <Sources sources={r.sources} /> : null}
      {r.status === "watching" ? <p className="muted">The agent has not found this yet. {nextStep(task)}</p> : null}
      {r.status === "resolved" ? <p className="muted">Resolved: the watch is complete and checks no more.</p> : null}
    </section>
  );
}

const markdownText = (s: string) => s.replace(/[\\[\]]/g, (c) => `\\${c}`);
const htmlAttribute = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Markdown and HTML that show the live badge and link to this page, each with a copy button. */
export function EmbedSnippets({ task, appUrl }: { task: TaskView; appUrl: string }) {
  const page = `${appUrl}/w/${task.id}`;
  const badge = `${appUrl}/api/v1/public/tasks/id/${task.id}/badge.svg`;
  const alt = `Watch: ${task.name.replace(/\s+/g, " ")}`;
  const snippets = [
    { id: "embed-markdown", label: "Markdown", text: `[![${markdownText(alt)}](${badge})](${page})` },
    { id: "embed-html", label: "HTML", text: `<a href="${page}"><img src="${badge}" alt="${htmlAttribute(alt)}"></a>` },
  ];
  return (
    <section aria-labelledby="embed">
      <h2 id="embed">Embed the verdict</h2>
      <p>
        {/* Our own image, which the page's policy allows (img-src 'self'). */}
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img
          src={`/api/v1/public/tasks/id/${task.id}/badge.svg`}
          alt={`watch: ${verdictLabel(task.resolution)}`}
          height={20}
        />{" "}
        <span className="muted">stays current wherever you put it: a README, a wiki, a status page.</span>
      </p>
      {snippets.map((s) => (
        <div className="snippet" key={s.id}>
          <div className="row">
            <span id={s.id}>{s.label}</span>
            <CopyButton text={s.text} label={`Copy ${s.label}`} />
          </div>
          <pre aria-labelledby={s.id}>
            <code>{s.text}</code>
          </pre>
        </div>
      ))}
    </section>
  );
}
