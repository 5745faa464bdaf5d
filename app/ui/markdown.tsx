/** The agent's words on a page: its markdown answer and its sources, both through the one sanitizing renderer. */
import { renderMarkdown, siteOf, sourceHref, USER_CONTENT_REL } from "@/server/render/markdown";

/** An agent's markdown answer as safe HTML (server/render/markdown.ts). */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div
      className={className ? `prose ${className}` : "prose"}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
    />
  );
}

/** The agent's sources: http(s) ones are links with their site named; anything else is shown as text only. */
export function Sources({ sources, newTab }: { sources: { url: string; title: string }[]; newTab?: boolean }) {
  if (!sources.length) return null;
  return (
    <ul className="sources" aria-label="Sources">
      {sources.map((s) => {
        const href = sourceHref(s.url);
        return (
          <li key={s.url}>
            {href ? (
              <>
                <a href={href} rel={USER_CONTENT_REL} target={newTab ? "_blank" : undefined}>
                  {s.title || s.url}
                </a>
                {s.title ? <span className="domain">{siteOf(href)}</span> : null}
              </>
            ) : (
              <span>{s.title || s.url}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
