/**
 * Every listed channel that posts a message fits its platform whatever the message is: property tests (fast-check)
 * build each channel's request from random answers (any Unicode: astral, emoji, CJK, combining marks; markup and
 * mentions; lengths to the caps and far beyond), names, titles and 0–30 sources whose URLs run to 10,000 characters
 * with `)` `]` `<` `>` `"` and spaces in them, and check that the request is within every limit the channel declares,
 * links only to the sources and the watch (read by real parsers), mentions no one, and still shows the answer's start.
 * The largest value seen for each limit is printed at the end.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { CHANNELS, type Channel } from "@/channels";
import { measure } from "@/channels/kit/fit";
import { chatMessage, type MessageKind } from "@/channels/kit/message";
import { parseNotifications } from "@/server/tasks/notifications";
import { bareUrls, decoded, read } from "../helpers/rendered";

const WATCH = "https://watch.example.com/w/11111111-1111-4111-8111-111111111111";
const RUNS = Number(process.env.WATCH_PROPERTY_RUNS) || 150;

const MARKUP = [
  "@everyone",
  "@here",
  "<!channel>",
  "<!here>",
  "<@123>",
  "<@&456>",
  "<#789>",
  "<at>Everyone</at>",
  "[click](https://evil.example/x)",
  "<https://evil.example/y|masked>",
  '<a href="https://evil.example/z">x</a>',
  "![img](https://evil.example/i.png)",
  "**bold**",
  "`code`",
  "```block```",
  "||spoiler||",
  "# heading",
  "> quote",
  "&amp;",
  "&lt;",
  "<&>",
  '"',
  "\\",
  "www.evil.example",
  "https://evil.example/bare",
  "\n",
  "\t",
  " ",
];

/** Text of every kind: any code point, graphemes (emoji, combining), CJK, markup and mentions, long runs. */
const anyText = (max: number) =>
  fc.oneof(
    fc.string({ unit: "binary", maxLength: max }),
    fc.string({ unit: "grapheme", maxLength: max }),
    fc.string({ unit: fc.constantFrom("漢", "字", "テ", "ス", "ト", "한", "글", " "), maxLength: max }),
    fc.string({ unit: fc.constantFrom("e\u0301", "👩‍👩‍👧", "🇫🇷", "𝕏", "a", " ", "\u200d"), maxLength: max }),
    fc
      .array(fc.oneof(fc.constantFrom(...MARKUP), fc.string({ unit: "grapheme", maxLength: 12 })), {
        maxLength: max / 4,
      })
      .map((parts) => parts.join(" ")),
    fc
      .constantFrom("<&>", "字", "😀", "a ", "\\*", '"')
      .chain((unit) => fc.integer({ min: 0, max }).map((n) => unit.repeat(n))),
  );

/** A URL to 10,000 characters, with characters that could end a link early or start another. */
const sourceUrl = fc
  .tuple(
    fc.constantFrom("https", "http"),
    fc.constantFrom("news.example.org", "xn--80ak6aa92e.example", "a.b.c.example.com", "127.0.0.1", "[::1]"),
    fc.oneof(
      fc.string({
        unit: fc.constantFrom("a", "/", ")", "]", "<", ">", '"', " ", "(", "[", "|", "%", "字", "?", "&", "="),
        maxLength: 200,
      }),
      fc.integer({ min: 0, max: 10_000 }).map((n) => "/p".padEnd(n, "x")),
      fc.constantFrom(
        ")[click](https://evil.example/steal",
        "><https://evil.example/steal|click>",
        '" href="https://evil.example',
      ),
    ),
  )
  .map(([scheme, host, path]) => `${scheme}://${host}/${path}`.slice(0, 10_000));

const source = fc.record({
  url: fc.oneof(
    { weight: 8, arbitrary: sourceUrl },
    { weight: 1, arbitrary: fc.constantFrom("javascript:alert(1)", "ftp://x.example/") },
  ),
  title: anyText(300),
});

const input = fc.record({
  kind: fc.constantFrom<MessageKind>("met", "retracted", "failing", "recovered", "test", "account"),
  title: anyText(2_000),
  watch: anyText(600),
  answer: anyText(5_000),
  confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  sources: fc.array(source, { maxLength: 30 }),
  url: fc.constant(WATCH),
  timestamp: fc.constant("2026-11-26T06:00:00.000Z"),
});

const lettersAndDigits = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, "");

/** The largest value seen for each limit of each channel, printed after the run. */
const worst = new Map<string, { value: number; max: number; unit: string }>();
afterAll(() => {
  const lines = [...worst].map(
    ([k, v]) => `  ${k}: ${v.value.toLocaleString("en")} of ${v.max.toLocaleString("en")} ${v.unit}`,
  );
  if (lines.length) console.info(`Largest values seen (${RUNS} runs per channel):\n${lines.join("\n")}`);
});

const DELIVERED = (CHANNELS as readonly Channel[]).filter((c) => c.delivery);

describe.each(DELIVERED.map((c) => [c.type, c] as const))("%s", (type, channel) => {
  const settings = Object.fromEntries(
    Object.entries(channel.settings ?? {}).map(([name, schema]) => [name, (schema as z.ZodType).parse(undefined)]),
  );
  const [config] = parseNotifications([{ type, ...channel.example }]);

  it.runIf(channel.limits)(
    "builds a request within every limit, linking only to the sources and the watch, mentioning no one, showing the answer",
    () => {
      const limits = channel.limits!;
      fc.assert(
        fc.property(input, (given) => {
          const message = chatMessage(given);
          const request = channel.delivery!.request(message, config as never, settings as never);
          expect(JSON.parse(JSON.stringify(request.body))).toEqual(request.body);
          for (const [name, at, value] of limits.measure(request)) {
            const { max, unit } = limits.max[name]!;
            const seen = measure(value, unit);
            const key = `${type} ${name}`;
            if (seen > (worst.get(key)?.value ?? -1)) worst.set(key, { value: seen, max, unit });
            expect(seen, `${name} at ${at}`).toBeLessThanOrEqual(max);
          }
          expect(limits.check(request)).toEqual([]);

          const allowed = [WATCH, ...message.sources.map((s) => s.url)].map(decoded);
          const shown: string[] = [];
          for (const rendered of limits.texts(request)) {
            const { links, text } = read(rendered);
            for (const link of links) expect(allowed, `a link in ${rendered.markup}`).toContain(decoded(link));
            for (const url of bareUrls(text)) expect(allowed.some((a) => decoded(url).startsWith(a))).toBe(true);
            if (limits.mentions) expect(rendered.text).not.toMatch(limits.mentions);
            shown.push(text);
          }
          const start = lettersAndDigits(message.answer).slice(0, 12);
          expect(lettersAndDigits(shown.join(" "))).toContain(start);
        }),
        { numRuns: RUNS },
      );
    },
  );
});
