/**
 * The one way text from outside becomes HTML: the agent's answers (model output, steered by whatever pages it
 * read) and its sources, for the public page, the dashboard, RSS and email. markdown-it parses with raw HTML off;
 * sanitize-html then keeps an allow-list of tags and attributes, so what the parser lets through is still checked.
 * Links are absolute http(s) (or mailto) only and marked as user content; no images (no tracking pixels, no
 * mixed content), no styles, no classes.
 */
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";

/** rel of every link to a URL that came from the agent. */
export const USER_CONTENT_REL = "nofollow noopener ugc";

const WEB = ["http:", "https:"];
const LINKS = [...WEB, "mailto:"];

/** The URL as a browser would resolve it when it is absolute and of one of `protocols`; otherwise null. */
function absoluteUrl(url: string, protocols: string[]): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  return protocols.includes(parsed.protocol) ? parsed.href : null;
}

/** A source's link target: absolute http(s) only (a `javascript:` or relative URL from a model is never a link). */
export function sourceHref(url: string): string | null {
  return absoluteUrl(url, WEB);
}

/** The site a link goes to, as people say it: "postgresql.org". */
export const siteOf = (href: string) => new URL(href).hostname.replace(/^www\./, "");

// `![alt](url)` reads as "!" and a link to the image.
const markdown = new MarkdownIt({ html: false, linkify: true }).disable("image");

const heading = (level: number) => () => ({ tagName: `h${level}`, attribs: {} });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "s",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "span",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
  ],
  allowedAttributes: { a: ["href", "rel"], ol: ["start"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowProtocolRelative: false,
  transformTags: {
    // The answer sits under the page's own headings.
    h1: heading(4),
    h2: heading(4),
    h3: heading(5),
    h4: heading(6),
    h5: heading(6),
    a: (_tag, attribs): sanitizeHtml.Tag => {
      const href = absoluteUrl(attribs.href ?? "", LINKS);
      return href ? { tagName: "a", attribs: { href, rel: USER_CONTENT_REL } } : { tagName: "span", attribs: {} };
    },
  },
};

// A stored answer never changes, and a public page shows up to 50 of them (about 0.5 ms each to parse and sanitize):
// the latest renders are kept, oldest out first.
const rendered = new Map<string, string>();
const CACHED_RENDERS = 256;
const CACHED_TEXT_LENGTH = 8192;

/** Markdown from outside as safe HTML. */
export function renderMarkdown(text: string): string {
  let html = rendered.get(text);
  if (html !== undefined) return html;
  html = sanitizeHtml(markdown.render(text), SANITIZE);
  if (text.length <= CACHED_TEXT_LENGTH) {
    if (rendered.size >= CACHED_RENDERS) rendered.delete(rendered.keys().next().value!);
    rendered.set(text, html);
  }
  return html;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The agent's sources as an HTML list (RSS); pages and email build theirs with React from `sourceHref`. */
export function renderSourceList(sources: { url: string; title: string }[]): string {
  const items = sources.map((s) => {
    const href = sourceHref(s.url);
    const text = escapeHtml(s.title || s.url);
    return `<li>${href ? `<a href="${escapeHtml(href)}" rel="${USER_CONTENT_REL}">${text}</a>` : text}</li>`;
  });
  return `<ul>${items.join("")}</ul>`;
}
