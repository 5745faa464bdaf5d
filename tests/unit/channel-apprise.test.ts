/**
 * Where a person types a channel (the dashboard's editor, `watchctl --notify`), Apprise URLs and the services' own
 * URLs become the channel config the API takes; secrets read back redacted and written back unchanged keep the stored
 * value, and no message repeats a secret typed by hand; the list, the database enum and the wire schemas agree.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { CHANNELS, CHANNEL_TYPES, NotificationConfig, parseApprise, REDACTED, redactSecret } from "@/channels";
import { parseNotifications } from "@/server/tasks/notifications";
import { channelConfigs } from "@/server/tasks/views";

const SLACK = "https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstWXYZ";
const TOKEN = "123456789:AAHabcdefghijklmnopqrstuvwxyz_1234";

describe("Apprise URLs", () => {
  it.each([
    ["slack://T0001/B0002/abcdefghijklmnopqrstWXYZ", { type: "slack", url: SLACK }],
    ["slack://watchbot@T0001/B0002/abcdefghijklmnopqrstWXYZ/#general", { type: "slack", url: SLACK }],
    [SLACK, { type: "slack", url: SLACK }],
    [
      "discord://123456789/tokenTOKEN",
      { type: "discord", url: "https://discord.com/api/webhooks/123456789/tokenTOKEN" },
    ],
    ["https://discord.com/api/webhooks/1/tok", { type: "discord", url: "https://discord.com/api/webhooks/1/tok" }],
    [`tgram://${TOKEN}/-1001234567890`, { type: "telegram", bot_token: TOKEN, chat_id: "-1001234567890" }],
    [`tgram://bot${TOKEN}/@watch_news`, { type: "telegram", bot_token: TOKEN, chat_id: "@watch_news" }],
    ["ntfy://my-topic", { type: "ntfy", url: "https://ntfy.sh/my-topic" }],
    [
      "ntfys://tk_secret123@push.example.com/alerts",
      { type: "ntfy", url: "https://push.example.com/alerts", token: "tk_secret123" },
    ],
    ["ntfy://push.example.com:8080/alerts", { type: "ntfy", url: "http://push.example.com:8080/alerts" }],
    ["https://ntfy.sh/phone-alerts", { type: "ntfy", url: "https://ntfy.sh/phone-alerts" }],
    [
      "workflows://prod-01.westus.logic.azure.com:443/abc123/SIGNATURE",
      {
        type: "teams",
        url: "https://prod-01.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGNATURE",
      },
    ],
    [
      "msteams://contoso/AAA/BBB/CCC",
      { type: "teams", url: "https://contoso.webhook.office.com/webhookb2/AAA/IncomingWebhook/BBB/CCC" },
    ],
  ])("%s", (url, config) => expect(parseApprise(url)).toEqual(config));

  it.each([
    ["mailto://me@example.com", "'mailto://' is not supported"],
    ["slack://xoxb-1234-5678/#general", "bot tokens"],
    ["slack://T0001/B0002", "three tokens"],
    ["discord://abc/token", "is a number"],
    [`tgram://${TOKEN}`, "add the chat"],
    [`tgram://${TOKEN}/1/2`, "one chat"],
    ["ntfy://user:pass@push.example.com/alerts", "access token"],
    ["https://example.com/hook", "add a webhook"],
    ["not a url", "not a URL"],
  ])("%s is refused with a reason", (url, reason) => expect(() => parseApprise(url)).toThrow(reason));
});

describe("secrets", () => {
  it("read back redacted: the last 4, a URL keeping its origin", () => {
    expect(redactSecret(SLACK)).toBe("https://hooks.slack.com/…WXYZ");
    expect(redactSecret(TOKEN)).toBe("…1234");
    const views = channelConfigs([
      { type: "ntfy", url: "https://ntfy.sh/t", token: "tk_abcdefgh" },
      { type: "telegram", bot_token: TOKEN, chat_id: "-1" },
      { type: "slack", url: SLACK },
      { type: "webhook", url: "https://example.com/h", method: "POST", headers: { "x-key": "s3cret" } },
    ] as unknown as { type: string }[]);
    expect(views.map((v) => v.type)).toEqual(["webhook", "slack", "telegram", "ntfy"]); // the registry's order
    const [webhook, slack, telegram, ntfy] = views;
    expect(slack).toEqual({ type: "slack", url: "https://hooks.slack.com/…WXYZ" });
    expect(telegram).toEqual({ type: "telegram", bot_token: "…1234", chat_id: "-1" });
    expect(ntfy).toEqual({ type: "ntfy", url: "https://ntfy.sh/…sh/t", token: "…efgh" });
    // A webhook's header values are the owner's to read; only exports hide them.
    expect(webhook).toMatchObject({ headers: { "x-key": "s3cret" } });
  });

  it("written back redacted (or as an export's <redacted>) keep the stored value; a new channel needs the real one", () => {
    const stored = parseNotifications([
      { type: "slack", url: SLACK },
      { type: "telegram", bot_token: TOKEN, chat_id: "-100123" },
    ]);
    const [slack, telegram] = parseNotifications(
      [
        { type: "slack", url: "https://hooks.slack.com/…WXYZ" },
        { type: "telegram", bot_token: REDACTED, chat_id: "@new_channel" },
      ],
      stored,
    );
    expect(slack).toEqual({ type: "slack", url: SLACK });
    expect(telegram).toEqual({ type: "telegram", bot_token: TOKEN, chat_id: "@new_channel" });
    expect(() => parseNotifications([{ type: "slack", url: "https://hooks.slack.com/…WXYZ" }])).toThrow(
      "Invalid notification: slack url is redacted and there is no stored value to keep",
    );
  });

  it("checks each channel's config with a clear reason", () => {
    expect(() => parseNotifications([{ type: "slack", url: "http://hooks.slack.com/x" }])).toThrow(
      "Invalid notification: slack url must use https",
    );
    expect(() => parseNotifications([{ type: "telegram", bot_token: "nope", chat_id: "1" }])).toThrow(
      "telegram bot_token must look like",
    );
    expect(() => parseNotifications([{ type: "ntfy", url: "https://ntfy.sh/" }])).toThrow(
      "ntfy url must end in a topic",
    );
    expect(() => parseNotifications([{ type: "sms", to: "1" }])).toThrow(
      "Invalid notification: type must be one of 'email', 'webhook', 'slack', 'discord', 'teams', 'telegram', 'ntfy'",
    );
  });
});

describe("one list of channels", () => {
  it("the registry, the client specs, the database enum and the wire schema agree", () => {
    expect(CHANNELS.map((c) => c.type)).toEqual(CHANNEL_TYPES);
    const schema = readFileSync("prisma/schema.prisma", "utf8");
    const values = /enum NotificationType \{([^}]*)\}/.exec(schema)![1]!.split(/\s+/).filter(Boolean);
    expect(values).toEqual(CHANNEL_TYPES);
    for (const type of CHANNEL_TYPES) expect(NotificationConfig.options.map((o) => o.shape.type.value)).toContain(type);
  });
});

describe("a secret typed by hand is never echoed", () => {
  const REFUSED = [
    "slack://T0001/SECRETtokenB",
    "slack://xoxb-SECRET-1234",
    "discord://abc/SECRETtoken",
    "tgram://123456789:SECRETtokenSECRETtoken",
    "tgram://123456789:SECRETtokenSECRETtoken/1/2",
    "ntfys://user:SECRETpass@push.example.com/alerts",
    "https://example.com/hooks/SECRETpath",
    "SECRET not a url at all",
    "workflows://host/SECRETid",
    "slack://[SECRET",
  ];

  it.each(REFUSED)("by the Apprise parser: %s", (url) => {
    expect(() => parseApprise(url)).toThrow();
    try {
      parseApprise(url);
    } catch (e) {
      expect((e as Error).message).not.toMatch(/SECRET/i);
    }
  });

  it("by watchctl, which names a refused --notify URL by its scheme only", async () => {
    const { main } = await import("@/client/cli");
    let stderr = "";
    const err = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true));
    try {
      for (const url of REFUSED) {
        stderr = "";
        expect(await main(["create", "a query", "--notify", url])).toBe(2);
        expect(stderr).toMatch(/^watchctl: --notify/);
        expect(stderr).not.toMatch(/SECRET/i);
      }
    } finally {
      err.mockRestore();
    }
  });

  it("by the API's checks", () => {
    for (const config of [
      { type: "slack", url: "not a url SECRETslack" },
      { type: "ntfy", url: "https://ntfy.sh/SECRET topic" },
      { type: "ntfy", url: "https://ntfy.sh/t", token: "tk SECRET" },
      { type: "telegram", bot_token: "SECRETtoken", chat_id: "1" },
      { type: "webhook", url: "SECRETwebhook", headers: { "x-key": "SECRET\nvalue" } },
    ])
      expect(() => parseNotifications([config])).toThrow(/^Invalid notification: (?![\s\S]*SECRET)/i);
  });
});
