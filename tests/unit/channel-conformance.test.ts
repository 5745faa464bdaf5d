/**
 * What every listed channel (channels/list.ts) must be, whatever its format: a new channel is tested here by being
 * listed. Its fields and its wire schema are one definition; its example config passes the API's checks; its secrets
 * never show in reads, exports, summaries or error messages, and a redacted value sent back keeps the stored one; its
 * Apprise example reads as itself; the server can deliver it; and a message built from hostile text, with a source URL
 * made to break out of its link, links nowhere but the source and the watch.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CHANNELS, mapSecrets, parseApprise, REDACTED, redactedView } from "@/channels";
import { chatMessage } from "@/channels/kit/message";
import { deliveryOf } from "@/server/notify/channels";
import { parseNotifications } from "@/server/tasks/notifications";

const WATCH = "https://watch.example.com/w/11111111-1111-4111-8111-111111111111";
/** A source whose `)` (or `]`, `>`, a space) would end its link early and start one of the attacker's. */
const BREAKOUTS = [
  "https://news.example.org/a)[click](https://evil.example/steal",
  "https://news.example.org/a](https://evil.example/steal)",
  "https://news.example.org/a><https://evil.example/steal|click>",
  'https://news.example.org/a" href="https://evil.example/steal',
  "https://news.example.org/a https://evil.example/steal",
];
const HOSTILE = "Out now @everyone <!channel> [click](https://evil.example/x) <b>bold</b> https://evil.example/y";

/** Every string value of a config (a webhook's headers included). */
const values = (config: Record<string, unknown>): string[] =>
  Object.values(config).flatMap((v) =>
    typeof v === "string" ? [v] : v && typeof v === "object" ? values(v as Record<string, unknown>) : [],
  );

describe.each(CHANNELS.map((c) => [c.type, c] as const))("%s", (type, channel) => {
  const example = { type, ...channel.example } as { type: string } & Record<string, unknown>;
  const secrets = () => {
    const found: string[] = [];
    mapSecrets(channel, example, (value, _what, kind) => (kind === "write-only" && found.push(value), value));
    return found;
  };

  it("has one definition of its fields: the editor's list is the wire schema's shape", () => {
    const shape = Object.keys(channel.schema.shape).filter((k) => k !== "type");
    expect(channel.fields.map((f) => f.name)).toEqual(shape);
    for (const f of channel.fields) {
      const schema = channel.schema.shape[f.name as keyof typeof channel.schema.shape] as z.ZodType;
      expect(f.optional).toBe(schema.safeParse(undefined).success);
      if (f.kind === "choice") expect(f.choices?.length).toBeGreaterThan(0);
    }
    expect(channel.label).not.toBe("");
    expect(channel.help).not.toBe("");
  });

  it("accepts its example as the API does", () => {
    const [parsed] = parseNotifications([example]);
    expect(parsed).toMatchObject({ type });
  });

  it("never shows a write-only secret: not in a read, a summary or an export, and a redacted value keeps it", () => {
    const view = redactedView(channel, example);
    const exported = mapSecrets(channel, example, () => REDACTED);
    for (const secret of secrets()) {
      expect(values(view).join(" ")).not.toContain(secret);
      expect(channel.summary(view)).not.toContain(secret);
      expect(values(exported)).not.toContain(secret);
    }
    const [stored] = parseNotifications([example]);
    expect(parseNotifications([view], [stored!])).toEqual([stored]);
    expect(parseNotifications([exported], [stored!])).toEqual([stored]);
  });

  it("does not repeat a secret in the message that refuses it", () => {
    for (const secret of secrets()) {
      const broken = Object.fromEntries(
        Object.entries(example).map(([k, v]) => [k, v === secret ? `not valid ${secret}` : v]),
      );
      expect(() => parseNotifications([broken])).toThrow();
      try {
        parseNotifications([broken]);
      } catch (e) {
        expect((e as Error).message).not.toContain(secret);
      }
    }
  });

  it.runIf(channel.apprise)("reads its own Apprise example as itself", () => {
    expect(parseApprise(channel.apprise!.example)).toMatchObject({ type });
  });

  it("is delivered by the server: a described request, or the server's own sender", () => {
    expect(deliveryOf(type)).toBeDefined();
  });

  it.runIf(channel.delivery)(
    "builds a request whose links go only to the sources and the watch, whatever the text and the URLs",
    () => {
      const settings = Object.fromEntries(
        Object.entries(channel.settings ?? {}).map(([name, schema]) => [name, (schema as z.ZodType).parse(undefined)]),
      );
      const [config] = parseNotifications([example]);
      for (const source of BREAKOUTS) {
        const message = chatMessage({
          kind: "met",
          title: HOSTILE,
          watch: HOSTILE,
          answer: `${HOSTILE} ${source}`,
          confidence: 0.9,
          sources: [{ url: source, title: HOSTILE }],
          url: WATCH,
        });
        const request = channel.delivery!.request(message, config as never, settings as never);
        const body = JSON.stringify(request.body);
        expect(JSON.parse(body)).toEqual(request.body);
        expect(new URL(request.url).protocol).toMatch(/^https?:$/);
        // A link destination that starts at the attacker's URL: markdown, autolink, Slack, HTML attribute.
        expect(body).not.toMatch(/(\(|<|\||=|\\")https?:\/\/evil/);
        // Text from outside never carries a live URL of its own (defanged), nor one the source's quote would close.
        expect(body).not.toContain("https://evil.example/x");
        expect(body).not.toContain("https://evil.example/y");
      }
    },
  );
});
