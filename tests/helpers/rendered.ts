/**
 * What a reader sees of a channel's text, read by real parsers: the links it makes (markdown by markdown-it, HTML by
 * parse5, Slack's mrkdwn by its one link syntax, plus the bare URLs a chat client turns into links) and its plain text.
 */
import MarkdownIt from "markdown-it";
import { parseFragment } from "parse5";
import type { Rendered } from "@/channels/kit/fit";

// Raw HTML on (a platform that renders it must not find any), lists off (a numbered line is still its text).
const markdown = new MarkdownIt({ html: true, linkify: false }).disable(["list"]);

type Node = { nodeName: string; value?: string; attrs?: { name: string; value: string }[]; childNodes?: Node[] };

function readHtml(html: string) {
  const links: string[] = [];
  const text: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeName === "#text") text.push(node.value ?? "");
    for (const attr of node.attrs ?? []) if (attr.name === "href" || attr.name === "src") links.push(attr.value);
    if (node.nodeName === "br" || node.nodeName === "p") text.push("\n");
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(parseFragment(html) as unknown as Node);
  return { links, text: text.join("") };
}

const SLACK_ENTITIES = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The links a text makes (destinations as written) and its text as shown. */
export function read({ markup, text }: Rendered): { links: string[]; text: string } {
  switch (markup) {
    case "markdown":
      return readHtml(markdown.render(text));
    case "html":
      return readHtml(text.replace(/\n/g, "<br>"));
    case "mrkdwn": {
      const links: string[] = [];
      const shown = text.replace(/<([^<>|]*)(?:\|([^<>]*))?>/g, (_all, target: string, label?: string) => {
        links.push(SLACK_ENTITIES(target));
        return label ?? target;
      });
      return { links, text: SLACK_ENTITIES(shown) };
    }
    case "plain":
      return { links: [], text };
  }
}

/** URLs a chat client would turn into links on its own, in text as shown. */
export const bareUrls = (shown: string) => [...shown.matchAll(/\bhttps?:\/\/[^\s<>"]+/gi)].map((m) => m[0]);

/** An address with its percent-encoding read (where it is valid UTF-8), to compare a link with the URL it stands for. */
export const decoded = (url: string) =>
  url.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Not UTF-8 as a whole (`%aa%20`): its ASCII escapes read one by one, the rest kept as written.
      return run.replace(/%([0-7][0-9a-f])/gi, (_seq, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
  });
