/**
 * Model text is hostile in every chat format: per format, an answer (and a title, a watch name, a source title) made of
 * mentions, masked links, markup, payload breakers or sheer length mentions no one, links nowhere but the run's sources
 * and the watch, keeps the payload intact and stays within the service's limits. Each format has one escaping
 * function, tested here through the payload it builds.
 */
import MarkdownIt from "markdown-it";
import { parseFragment } from "parse5";
import { describe, expect, it } from "vitest";
import { discordPayload, escapeDiscord } from "@/channels/discord/payload";
import { cutOnWord, fitEscaped } from "@/channels/kit/format";
import { chatMessage, inert } from "@/channels/kit/message";
import { escapeNtfy, ntfyPayload, topicOf } from "@/channels/ntfy/payload";
import { escapeSlack, slackPayload } from "@/channels/slack/payload";
import { escapeTeams, teamsPayload } from "@/channels/teams/payload";
import { escapeTelegram, telegramPayload } from "@/channels/telegram/payload";

const SOURCE = "https://news.example.org/apple/iphone-18";
const WATCH = "https://watch.example.com/w/11111111-1111-4111-8111-111111111111";

const HOSTILE: [string, string][] = [
  ["@everyone", "Announced! @everyone @here look"],
  ["<!channel>", "Big news <!channel> <!here> <!everyone>"],
  ["<@123>", "ping <@123> and <@&456> and <#789>"],
  ["masked link", "Read [click](https://evil.example/steal) now"],
  ["slack link", "See <https://evil.example/x|the official page>"],
  ["html", '<b>bold</b> <a href="https://evil.example">x</a> &amp;'],
  ["script", "<script>alert(1)</script>"],
  ["cdata", ']]> </xml> "quoted" \'single\' {"json":true}'],
  ["at mention", "thanks @durov and @channel"],
  ["bare url", "Details at https://evil.example/path?a=1 and www.evil.example"],
  ["teams mention", "<at>Everyone</at> hello"],
  ["markdown", "# Heading\n> quote\n**bold** __u__ ~~s~~ ||spoiler|| `code` ```block```"],
  ["long", `${"word ".repeat(600)}end`],
  ["long entities", "<&>".repeat(1200)],
];

function message(answer: string) {
  return chatMessage({
    kind: "met",
    title: answer.slice(0, 300),
    watch: answer.slice(0, 200) || "iPhone 18",
    answer,
    confidence: 0.87,
    sources: [
      { url: SOURCE, title: answer.slice(0, 120) || "Source" },
      { url: "javascript:alert(1)", title: "bad" },
    ],
    url: WATCH,
    timestamp: "2026-11-26T06:00:00.000Z",
  });
}

/** Every URL a payload links to must be a source or the watch. */
const ALLOWED = new Set([SOURCE, WATCH]);
const NO_EVIL = (text: string) => {
  expect(text).not.toMatch(/https?:\/\/evil/i);
  expect(text).not.toMatch(/(?<!\[)evil\.example/i);
};

describe("the message every format renders", () => {
  it("cuts the answer at 1,000 characters on a word, keeps http(s) sources only, at most three", () => {
    const m = chatMessage({
      kind: "met",
      title: "t",
      watch: "w",
      answer: "alpha ".repeat(400),
      sources: [1, 2, 3, 4]
        .map((i) => ({ url: `https://s${i}.example.com/`, title: `S${i}` }))
        .concat([{ url: "ftp://x.example.com", title: "ftp" }]),
      url: WATCH,
    });
    expect(m.answer.length).toBeLessThanOrEqual(1000);
    expect(m.answer.endsWith("alpha…")).toBe(true);
    expect(m.sources.map((s) => s.url)).toEqual([1, 2, 3].map((i) => `https://s${i}.example.com/`));
    expect(m.confidence).toBeNull(); // only a finding's message carries a confidence: none was given
  });

  it("defangs every URL but the run's sources", () => {
    expect(inert(`see ${SOURCE} and https://evil.example/x`, [{ url: SOURCE, title: "" }])).toBe(
      `see ${SOURCE} and hxxps://evil[.]example/x`,
    );
  });

  it("fits escaped text without cutting an escape", () => {
    const fitted = fitEscaped("<".repeat(100), 50, escapeSlack);
    expect(fitted.length).toBeLessThanOrEqual(50);
    expect(fitted).toMatch(/^(&lt;)+…$/);
    expect(cutOnWord("short", 10)).toBe("short");
  });
});

describe.each(HOSTILE)("hostile text (%s)", (_name, answer) => {
  const m = message(answer);

  it("Slack: no mention, no masked or foreign link, within Block Kit limits", () => {
    const p = slackPayload(m);
    const json = JSON.stringify(p);
    expect(JSON.parse(json)).toEqual(p);
    for (const text of [p.text, ...p.blocks.map((b) => JSON.stringify(b))]) {
      expect(text).not.toMatch(/<[!@#]/);
      NO_EVIL(text);
    }
    const links = [...json.matchAll(/<([^|>]+)\|/g)].map((x) => x[1]);
    for (const l of links) expect(ALLOWED.has(l!)).toBe(true);
    const header = p.blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    for (const b of p.blocks as { type: string; text?: { text: string } }[])
      if (b.type === "section") expect(b.text!.text.length).toBeLessThanOrEqual(3000);
  });

  it("Discord: mentions off and inert, links only to sources, within Discord's limits", () => {
    const p = discordPayload(m);
    expect(p.allowed_mentions).toEqual({ parse: [] });
    const embed = p.embeds![0]!;
    expect(embed.title!.length).toBeLessThanOrEqual(256);
    expect(embed.description!.length).toBeLessThanOrEqual(4096);
    expect(p.content!.length).toBeLessThanOrEqual(2000);
    const total =
      embed.title!.length +
      embed.description!.length +
      (embed.footer?.text.length ?? 0) +
      embed.fields!.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
    for (const text of [p.content!, embed.title!, embed.description!]) {
      expect(text).not.toMatch(/@(everyone|here|durov|channel)/);
      expect(text).not.toMatch(/(?<!\\)\]\((?!<)/); // no unescaped masked link
      expect(text).not.toMatch(/(?<!\\)<[@#]/);
      NO_EVIL(text);
    }
    const sources = embed.fields!.find((f) => f.name === "Sources")!.value;
    expect(sources).toContain(`(<${SOURCE}>)`);
    expect(sources.split("\n")).toHaveLength(1); // javascript: dropped
  });

  it("Teams: an Adaptive Card 1.4 whose text forms no link, mention or HTML", () => {
    const p = teamsPayload(m);
    expect(p.type).toBe("message");
    const card = p.attachments[0]!.content as { version: string; body: { type: string; text?: string }[] };
    expect(p.attachments[0]!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card.version).toBe("1.4");
    const [label, title, answerBlock, , sources] = card.body;
    for (const b of [label, title, answerBlock]) {
      if (!b?.text) continue;
      expect(b.text).not.toMatch(/<(at|script|b|a)\b/i);
      expect(b.text).not.toMatch(/(?<!\\)\]\(/);
      NO_EVIL(b.text);
    }
    expect(sources?.text ?? "").toContain(`(${SOURCE})`);
  });

  it("Telegram: HTML with our tags only, links only to sources and the watch, within 4,096 characters", () => {
    const p = telegramPayload(m, "-1001");
    expect(p.parse_mode).toBe("HTML");
    expect(p.link_preview_options).toEqual({ is_disabled: true });
    expect(p.text.length).toBeLessThanOrEqual(4096);
    const tags = [...p.text.matchAll(/<\/?([a-z]+)/gi)].map((x) => x[1]);
    expect(new Set(tags)).toEqual(new Set(["b", "a"]));
    const hrefs = [...p.text.matchAll(/<a href="([^"]+)">/g)].map((x) => x[1]!.replace(/&amp;/g, "&"));
    for (const h of hrefs) expect(ALLOWED.has(h)).toBe(true);
    expect(p.text).not.toMatch(/@(everyone|here|durov|channel)/);
    NO_EVIL(p.text);
  });

  it("ntfy: markdown that forms no link but the sources', within the message limit", () => {
    const p = ntfyPayload(m, "alerts");
    expect(p).toMatchObject({ topic: "alerts", click: WATCH, markdown: true });
    expect(p.message.length).toBeLessThanOrEqual(3500);
    const links = [...p.message.matchAll(/(?<!\\)\]\(([^)]+)\)/g)].map((x) => x[1]);
    for (const l of links) expect(ALLOWED.has(l!)).toBe(true);
    NO_EVIL(p.message);
    NO_EVIL(p.title);
  });
});

describe("each format's one escaping function", () => {
  it.each([
    ["slack", escapeSlack, "<!channel> & <@1>", "&lt;!channel&gt; &amp; &lt;@1&gt;"],
    ["discord", escapeDiscord, "[a](b) @everyone", "\\[a\\]\\(b\\) @\u2060everyone"],
    ["teams", escapeTeams, "[a](b) <at>", "\\[a\\]\\(b\\) &lt;at&gt;"],
    ["telegram", escapeTelegram, '<b>"&"</b> @x', "&lt;b&gt;&quot;&amp;&quot;&lt;/b&gt; @\u2060x"],
    ["ntfy", escapeNtfy, "[a](b) ![i](c)", "\\[a\\]\\(b\\) \\!\\[i\\]\\(c\\)"],
  ])("%s", (_f, escape, raw, escaped) => expect(escape(raw)).toBe(escaped));

  it("ntfy publishes to the server root with the topic in the body", () => {
    expect(topicOf("https://ntfy.sh/my-topic")).toEqual({ server: "https://ntfy.sh", topic: "my-topic" });
    expect(topicOf("https://push.example.com/ntfy/alerts")).toEqual({
      server: "https://push.example.com/ntfy",
      topic: "alerts",
    });
  });
});

describe("a source URL is one link in every format", () => {
  // Read by real parsers: a `)` (or `]`, `>`, a space, a quote) in a source URL must not end its link and start one.
  const ATTACKS = [
    "https://news.example.org/a)[click](https://evil.example/steal",
    "https://news.example.org/a](https://evil.example/steal)",
    "https://news.example.org/a><https://evil.example/steal|click>",
    'https://news.example.org/a" href="https://evil.example/steal',
    "https://news.example.org/a https://evil.example/steal",
  ];
  const markdown = new MarkdownIt({ linkify: false });
  const decoded = (href: string) => decodeURIComponent(href.replace(/&amp;/g, "&"));
  const markdownLinks = (text: string) =>
    [...markdown.render(text).matchAll(/<a href="([^"]*)"/g)].map((x) => decoded(x[1]!));
  const htmlLinks = (html: string) => {
    const hrefs: string[] = [];
    const walk = (node: { nodeName: string; attrs?: { name: string; value: string }[]; childNodes?: unknown[] }) => {
      if (node.nodeName === "a") hrefs.push(decodeURIComponent(node.attrs!.find((a) => a.name === "href")!.value));
      for (const child of node.childNodes ?? []) walk(child as typeof node);
    };
    walk(parseFragment(html.replace(/\n/g, "<br>")) as unknown as Parameters<typeof walk>[0]);
    return hrefs;
  };
  const messageWith = (url: string) =>
    chatMessage({
      kind: "met",
      title: "Found",
      watch: "Watch",
      answer: `See ${url}`,
      confidence: 0.9,
      sources: [{ url, title: "The source" }],
      url: WATCH,
    });

  it.each(ATTACKS)("%s", (url) => {
    const m = messageWith(url);
    const discordSources = discordPayload(m).embeds![0]!.fields!.find((f) => f.name === "Sources")!.value;
    expect(markdownLinks(discordSources)).toEqual([url]);
    const card = teamsPayload(m).attachments[0]!.content as { body: { text?: string }[] };
    expect(card.body.flatMap((b) => (b.text ? markdownLinks(b.text) : []))).toEqual([url]);
    expect(markdownLinks(ntfyPayload(m, "alerts").message)).toEqual([url]);
    const slack = JSON.stringify(slackPayload(m).blocks);
    expect([...slack.matchAll(/<([^|>]+)\|/g)].map((x) => decoded(x[1]!))).toEqual([url]);
    expect(htmlLinks(telegramPayload(m, "-1").text)).toEqual([url, WATCH]);
    // The answer that quotes it links nowhere either: such a URL is defanged in text like any other.
    expect(m.answer).not.toContain("https://");
  });
});
