/** The snippets that embed a public watch's verdict badge elsewhere (its page shows them under the verdict card). */
import type { TaskView } from "@/server/tasks/schemas";
import { verdictLabel } from "@/server/public/verdict";
import { CopyButton } from "../../dashboard/ui/actions";

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
    <section className="section" aria-labelledby="embed">
      <h2 id="embed">Embed the verdict</h2>
      <div className="card">
        <p className="row">
          {/* Our own image, which the page's policy allows (img-src 'self'). */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img
            src={`/api/v1/public/tasks/id/${task.id}/badge.svg`}
            alt={`watch: ${verdictLabel(task.verdict)}`}
            height={20}
          />
          <span className="muted small">stays current wherever you put it: a README, a wiki, a status page.</span>
        </p>
        {snippets.map((s) => (
          <div className="snippet" key={s.id}>
            <div className="spread">
              <span id={s.id} className="small">
                {s.label}
              </span>
              <CopyButton text={s.text} label={`Copy ${s.label}`} />
            </div>
            <pre className="code-block" aria-labelledby={s.id}>
              <code>{s.text}</code>
            </pre>
          </div>
        ))}
      </div>
    </section>
  );
}
