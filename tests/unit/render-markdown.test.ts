/** The one markdown renderer: what a browser parses out of its HTML can never run script or load anything. */
import { parseFragment, serializeOuter, type DefaultTreeAdapterMap } from "parse5";
import { describe, expect, it } from "vitest";
import { renderMarkdown, renderSourceList, sourceHref, USER_CONTENT_REL } from "@/server/render/markdown";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

const TAGS = new Set([
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
]);

/** The elements a browser builds from `html` (parse5 follows the HTML standard's parsing rules). */
function elements(html: string): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    if ("tagName" in n) out.push(n);
    if ("childNodes" in n) n.childNodes.forEach(visit);
  };
  visit(parseFragment(html));
  return out;
}
const hrefs = (html: string) =>
  elements(html)
    .filter((e) => e.tagName === "a")
    .map((e) => e.attrs.find((a) => a.name === "href")?.value);

/** Only allowed tags; links are absolute http(s)/mailto with the user-content rel; no other attribute but `start`. */
function expectSafe(html: string) {
  for (const el of elements(html)) {
    expect(TAGS.has(el.tagName), `<${el.tagName}> in ${html}`).toBe(true);
    for (const { name, value } of el.attrs) {
      if (el.tagName === "a" && name === "href") expect(value, html).toMatch(/^(https?:\/\/|mailto:)/);
      else if (el.tagName === "a" && name === "rel") expect(value).toBe(USER_CONTENT_REL);
      else if (el.tagName === "ol" && name === "start") expect(value).toMatch(/^\d+$/);
      else throw new Error(`attribute ${name}="${value}" on <${el.tagName}> in ${html}`);
    }
    if (el.tagName === "a") expect(el.attrs.map((a) => a.name).sort()).toEqual(["href", "rel"]);
  }
  // RSS carries the HTML in a CDATA section.
  expect(html).not.toContain("]]>");
}

describe("renderMarkdown", () => {
  const dropped: [string, string][] = [
    ["javascript:", "[x](javascript:alert(1))"],
    ["mixed case", "[x](JaVaScRiPt:alert(1))"],
    ["leading space", "[x]( javascript:alert(1))"],
    ["angle brackets", "[x](<javascript:alert(1)>)"],
    ["tab entity", "[x](jav&#x09;ascript:alert(1))"],
    ["newline entity", "[x](java&#10;script:alert(1))"],
    ["encoded letter", "[x](&#106;avascript:alert(1))"],
    ["colon entity", "[x](javascript&colon;alert(1))"],
    ["percent-encoded", "[x](javascript%3Aalert(1))"],
    ["autolink", "<javascript:alert(1)>"],
    ["reference", "[x][evil]\n\n[evil]: javascript:alert(1)"],
    ["vbscript:", "[x](vbscript:msgbox(1))"],
    ["data:", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
    ["data: upper case", "[x](DATA:text/html,<script>alert(1)</script>)"],
    ["file:", "[x](file:///etc/passwd)"],
    ["relative", "[x](/api/v1/tasks)"],
    ["protocol-relative", "[x](//evil.example/)"],
    ["backslashes", "[x](\\\\evil.example)"],
  ];
  it.each(dropped)("drops a %s link and keeps its text", (_name, input) => {
    const html = renderMarkdown(input);
    expectSafe(html);
    expect(hrefs(html)).toEqual([]);
    expect(html).not.toMatch(/<a[\s>]/);
  });

  const markup: [string, string, RegExp][] = [
    ["<script>", "<script>alert(1)</script>", /&lt;script&gt;alert\(1\)&lt;\/script&gt;/],
    ["<img onerror>", '<img src=x onerror="alert(1)">', /&lt;img src=x onerror=/],
    ["<iframe>", '<iframe src="https://evil.example/"></iframe>', /&lt;iframe/],
    ["<svg onload>", "<svg onload=alert(1)>", /&lt;svg onload=alert\(1\)&gt;/],
    ["event attribute on a link", '<a href="https://example.com" onclick="alert(1)">x</a>', /&lt;a href=/],
    ["style", '<p style="position:fixed">x</p>', /&lt;p style=/],
    ["html block", "<div>\n<form action=https://evil.example><button>go</button></form>\n</div>", /&lt;form action=/],
    ["comment", "<!-- <script>alert(1)</script> -->", /&lt;!-- &lt;script&gt;/],
  ];
  it.each(markup)("shows raw HTML (%s) as text", (_name, input, text) => {
    const html = renderMarkdown(input);
    expectSafe(html);
    expect(html).toMatch(text);
  });

  it("keeps the attribute-breakout payload's URL inside its href", () => {
    const html = renderMarkdown('[notes](https://example.com/"onfocus="alert(1)"autofocus="")');
    expectSafe(html);
    expect(hrefs(html)).toEqual(["https://example.com/%22onfocus=%22alert(1)%22autofocus=%22%22"]);
    expect(elements(html).find((e) => e.tagName === "a")!.childNodes).toMatchObject([{ value: "notes" }]);
  });

  it("keeps a link title's quotes out of the markup", () => {
    const html = renderMarkdown(
      '[x](https://example.com "t\\" onmouseover=\\"alert(1)") and [y](https://example.com/a"b)',
    );
    expectSafe(html);
    expect(hrefs(html)).toEqual(["https://example.com/", "https://example.com/a%22b"]);
  });

  it("renders images as links to them, never as <img>", () => {
    const html = renderMarkdown("![pixel](https://tracker.example/p.gif?u=1) ![x](javascript:alert(1))");
    expectSafe(html);
    expect(hrefs(html)).toEqual(["https://tracker.example/p.gif?u=1"]);
    expect(html).not.toContain("<img");
  });

  it("links http(s) autolinks, bare URLs and email addresses", () => {
    const html = renderMarkdown("<https://a.example/x?y=1&z=2> https://b.example/path and ops@example.com");
    expectSafe(html);
    expect(hrefs(html)).toEqual(["https://a.example/x?y=1&z=2", "https://b.example/path", "mailto:ops@example.com"]);
  });

  it("handles nested markdown and links inside links", () => {
    for (const input of [
      "[**bold _and em_ [inner](https://inner.example)**](https://outer.example)",
      "[[x](javascript:alert(1))](https://ok.example)",
      "[x](https://a.example)[y](javascript:alert(1))",
      "> quote with [link](https://q.example)\n>\n> - item **[deep](https://d.example)**",
    ]) {
      const html = renderMarkdown(input);
      expectSafe(html);
      // No link inside a link.
      expect(elements(html).filter((e) => e.tagName === "a" && /<a[\s>]/.test(serializeOuter(e).slice(2)))).toEqual([]);
    }
    expect(hrefs(renderMarkdown("[[x](javascript:alert(1))](https://ok.example)"))).toEqual(["https://ok.example/"]);
  });

  it("keeps what answers use: paragraphs, emphasis, lists, code, tables, headings under the page's own", () => {
    const html = renderMarkdown(
      "# Title\n\n## Sub\n\n1. one\n2. **two**\n\n3) three\n\n`code ]]> </p>`\n\n```\nblock ]]>\n```\n\n| a | b |\n|--:|---|\n| 1 | 2 |\n\n~~old~~ *new*",
    );
    expectSafe(html);
    expect(html).toContain("<h4>Title</h4>");
    expect(html).toContain("<strong>two</strong>");
    expect(html).toContain('<ol start="3">');
    expect(html).toContain("<code>code ]]&gt; &lt;/p&gt;</code>");
    expect(html).toMatch(/<table>[\s\S]*<td>1<\/td>/);
    expect(html).not.toContain("style=");
    expect(html).toContain("<s>old</s> <em>new</em>");
  });

  it("answers the same for the same text (cached) and for text too long to cache", () => {
    const long = `[x](https://example.com) ${"word ".repeat(3000)}`;
    expect(renderMarkdown(long)).toBe(renderMarkdown(long));
    expectSafe(renderMarkdown(long));
    expect(renderMarkdown("**a**")).toBe(renderMarkdown("**a**"));
  });
});

describe("sourceHref", () => {
  it("allows absolute http(s) URLs only", () => {
    expect(sourceHref("https://example.com/a b")).toBe("https://example.com/a%20b");
    expect(sourceHref('https://example.com/"><script>')).toBe("https://example.com/%22%3E%3Cscript%3E");
    expect(sourceHref("HTTP://EXAMPLE.com")).toBe("http://example.com/");
    for (const url of [
      "javascript:alert(1)",
      " JavaScript:alert(1)",
      "java\tscript:alert(1)",
      "vbscript:x",
      "data:text/html,x",
      "mailto:a@example.com",
      "/relative",
      "//evil.example",
      "",
      "not a url",
    ])
      expect(sourceHref(url), url).toBeNull();
  });
});

describe("renderSourceList", () => {
  it("links http(s) sources only and escapes every title", () => {
    const html = renderSourceList([
      { url: "javascript:alert(1)", title: "evil" },
      { url: "https://example.org/a", title: '"><img src=x onerror=alert(2)>' },
      { url: "data:text/html,x", title: "" },
    ]);
    expectSafe(html);
    expect(hrefs(html)).toEqual(["https://example.org/a"]);
    expect(html).toBe(
      '<ul><li>evil</li><li><a href="https://example.org/a" rel="nofollow noopener ugc">&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</a></li><li>data:text/html,x</li></ul>',
    );
  });
});
