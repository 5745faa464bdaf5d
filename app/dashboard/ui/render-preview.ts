"use server";
/**
 * The watch form runs in the browser, but the agent's markdown becomes HTML only through the one sanitizing
 * renderer, on the server: the form sends the preview's answer and sources here and shows what comes back.
 */
import { z } from "zod";
import { viewer } from "@/server/api/server-caller";
import { renderMarkdown, siteOf, sourceHref, USER_CONTENT_REL } from "@/server/render/markdown";

const Input = z.object({
  answer: z.string().max(20_000),
  sources: z.array(z.object({ url: z.string().max(4096), title: z.string().max(1000) })).max(50),
});

export type RenderedPreview = {
  answer_html: string;
  /** rel of the source links (the renderer's, kept on the server with it). */
  rel: string;
  sources: { href: string | null; title: string; site: string | null }[];
};

export async function renderPreview(input: z.input<typeof Input>): Promise<RenderedPreview | null> {
  const parsed = Input.safeParse(input);
  if (!parsed.success || !(await viewer())) return null;
  return {
    answer_html: renderMarkdown(parsed.data.answer),
    rel: USER_CONTENT_REL,
    sources: parsed.data.sources.map((s) => {
      const href = sourceHref(s.url);
      return { href, title: s.title || s.url, site: href ? siteOf(href) : null };
    }),
  };
}
