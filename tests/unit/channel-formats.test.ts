/**
 * Model text is hostile in every chat format: per format, an answer (and a title, a watch name, a source title) made of
 * mentions, masked links, markup, payload breakers or sheer length mentions no one, links nowhere but the run's sources
 * and the watch, keeps the payload intact and stays within the service's limits. Each format has one escaping
 * function, tested here through the payload it builds.
 */
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
