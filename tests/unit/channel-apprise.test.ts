/**
 * Where a person types a channel (the dashboard's editor, `watchctl --notify`), Apprise URLs and the services' own
 * URLs become the channel config the API takes; secrets read back redacted and written back unchanged keep the stored
 * value, and no message repeats a secret typed by hand; the list, the database enum and the wire schemas agree.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import {
  CHANNELS,
  CHANNEL_TYPES,
  channelOf,
  NotificationConfig,
  parseApprise,
  REDACTED,
  redactSecret,
} from "@/channels";
import { parseNotifications } from "@/server/tasks/notifications";
import { channelConfigs } from "@/server/tasks/views";

const SLACK = "https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstWXYZ";
const TOKEN = "123456789:AAHabcdefghijklmnopqrstuvwxyz_1234";

describe("Apprise URLs", () => {
  it.each([
    ["slack://T0001/B0002/abcdefghijklmnopqrstWXYZ", { type: "slack", url: SLACK }],
    [
      "slack://T0001/B0002/abcdefghijklmnopqrstWXYZ?mode=gov-hook",
      { type: "slack", url: "https://hooks.slack-gov.com/services/T0001/B0002/abcdefghijklmnopqrstWXYZ" },
    ],
    [SLACK, { type: "slack", url: SLACK }],
    [
      "discord://123456789/tokenTOKEN",
      { type: "discord", url: "https://discord.com/api/webhooks/123456789/tokenTOKEN" },
    ],
    ["https://discord.com/api/webhooks/1/tok", { type: "discord", url: "https://discord.com/api/webhooks/1/tok" }],
    ["https://discordapp.com/api/webhooks/1/tok", { type: "discord", url: "https://discord.com/api/webhooks/1/tok" }],
    [
      "discord://123456789/tokenTOKEN?thread=987",
      { type: "discord", url: "https://discord.com/api/webhooks/123456789/tokenTOKEN", thread_id: "987" },
    ],
    [`tgram://${TOKEN}/watch_news`, { type: "telegram", bot_token: TOKEN, chat_id: "@watch_news" }],
    [
      `tgram://${TOKEN}/-1001234567890:42`,
      { type: "telegram", bot_token: TOKEN, chat_id: "-1001234567890", message_thread_id: 42 },
    ],
    [
      `tgram://${TOKEN}/-1001234567890?topic=42`,
      { type: "telegram", bot_token: TOKEN, chat_id: "-1001234567890", message_thread_id: 42 },
    ],
    [
      "ntfys://alice:SECRET@push.example.com/alerts?auth=token",
      { type: "ntfy", url: "https://push.example.com/alerts", token: "SECRET" },
    ],
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
      "workflows://prod-01.westus.logic.azure.com:443/SIGNATURE?id=abc123",
      {
        type: "teams",
        url: "https://prod-01.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGNATURE",
      },
    ],
    // The new services' own URLs, pasted as they are.
    [
      "https://chat.example.com/hooks/abcdefghijklmnopqrstuvwxyz",
      { type: "mattermost", url: "https://chat.example.com/hooks/abcdefghijklmnopqrstuvwxyz" },
    ],
    [
      "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=K&token=T&threadKey=alerts",
      {
        type: "googlechat",
        url: "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=K&token=T",
        thread_key: "alerts",
      },
    ],
    [
      "https://apprise.example.com/notify/my-key",
      { type: "apprise", url: "https://apprise.example.com/notify/my-key" },
    ],
    [
      "apprises://apprise.example.com/my-key?tags=alerts,phone",
      { type: "apprise", url: "https://apprise.example.com/notify/my-key", tags: "alerts, phone" },
    ],
  ])("%s", (url, config) => expect(parseApprise(url)).toEqual(config));

  it.each([
    ["mailto://me@example.com", "'mailto://' is not supported"],
    ["slack://xoxb-1234-5678/#general", "bot tokens"],
    ["slack://T0001/B0002", "three tokens"],
    ["slack://watchbot@T0001/B0002/abcdefghijklmnopqrstWXYZ/#general", "username overrides"],
    ["slack://T0001/B0002/abcdefghijklmnopqrstWXYZ/#general", "channel, user or email targets are not supported"],
    ["https://hooks.slack.com/triggers/T0001/B0002/C0003", "Slack workflow triggers"],
    ["discord://123456789", "not a Discord webhook"],
    ["https://ptb.discord.com/api/webhooks/1/tok", "not a Discord webhook"],
    [`tgram://${TOKEN}`, "add the chat id"],
    [`tgram://${TOKEN}/1/2`, "one chat per Watch channel"],
    ["msteams://contoso/AAA/BBB/CCC", "retired: create a Teams Workflows webhook"],
    ["https://contoso.webhook.office.com/webhookb2/AAA/IncomingWebhook/BBB/CCC", "use workflows://"],
    ["ntfy://user:pass@push.example.com/alerts", "access token"],
    ["https://example.com/hook", "add a webhook"],
    ["not a url", "not a URL"],
    ["https://webhooks.t2bot.io/api/v1/matrix/hook/abcdef123456", "Matrix webhook bridges (t2bot"],
    ["https://webhooks.t2bot.io/", "Matrix webhook bridges (t2bot"],
  ])("%s is refused with a reason", (url, reason) => expect(() => parseApprise(url)).toThrow(reason));
});

/**
 * Every URL of Apprise's own plugin tests for the Apprise API, Mattermost, Matrix, Pushover, Gotify and Google Chat
 * (fixtures/apprise-urls.json: what Apprise 1.13.0 did with each, and what Watch makes of it, with the decisions where
 * Watch differs): each becomes exactly its config, which passes its channel's checks, or is refused with its reason,
 * and no refusal repeats a credential, a path part or a token of the URL.
 */
describe("Apprise's own test URLs", () => {
  type Row = { channel: string; url: string; watch: { config?: { type: string }; refuse?: string } };
  const { rows } = JSON.parse(readFileSync("tests/unit/fixtures/apprise-urls.json", "utf8")) as { rows: Row[] };
  const mapped = rows.filter((r) => r.watch.config);
  const refused = rows.filter((r) => r.watch.refuse);

  it("cover each of the six channels, mapped and refused", () => {
    for (const type of ["apprise", "mattermost", "matrix", "pushover", "gotify", "googlechat"]) {
      expect(mapped.some((r) => r.channel === type)).toBe(true);
      expect(refused.some((r) => r.channel === type)).toBe(true);
    }
  });

  it.each(mapped.map((r) => [r.url, r.watch.config!] as const))("%s maps as Apprise sends it", (url, config) => {
    expect(parseApprise(url)).toEqual(config);
    const channel = channelOf(config.type)!;
    // The test URLs name localhost and plain http: what an operator's WEBHOOK_ALLOW_PRIVATE permits.
    expect(() => channel.check(channel.schema.parse(config), { allowPrivate: true })).not.toThrow();
  });

  /**
   * What a URL may hold that is a secret: its credentials, its path, its token, key and target values, its fragment
   * (but words that name the URL's own parts, which the reasons use too: a password that is "password").
   */
  const NAMES = new Set(["password", "matrix"]);
  const secretsOf = (url: string) => {
    const [, rest = ""] = url.split("://");
    const [authority = "", ...path] = rest.split(/[?#]/)[0]!.split("/");
    const userinfo = authority.includes("@") ? authority.slice(0, authority.lastIndexOf("@")).split(":") : [];
    const query = [...new URLSearchParams(rest.split("?")[1]?.split("#")[0] ?? "")]
      .filter(([k]) => ["token", "key", "to"].includes(k.toLowerCase()))
      .flatMap(([, v]) => v.split(/[\s,]+/));
    const hash = rest.includes("#") ? rest.slice(rest.indexOf("#") + 1).split(/[/?]/) : [];
    return [...userinfo, ...path, ...query, ...hash].filter((p) => p.length >= 6 && !NAMES.has(p));
  };

  it.each(refused.map((r) => [r.url, r.watch.refuse!] as const))("%s is refused: %s", (url, reason) => {
    expect(() => parseApprise(url)).toThrow(reason);
    for (const secret of secretsOf(url)) expect(reason).not.toContain(secret);
  });
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
    expect(() =>
      parseNotifications([
        {
          type: "matrix",
          homeserver: "https://webhooks.t2bot.io",
          access_token: "syt_abcdefgh",
          room: "!room:example.org",
        },
      ]),
    ).toThrow("matrix homeserver is t2bot's webhook bridge");
    expect(() =>
      parseNotifications([
        { type: "matrix", homeserver: "https://m.example.org", access_token: "syt_abcdefgh", room: "#a:b" },
      ]),
    ).toThrow("not an alias");
    expect(() => parseNotifications([{ type: "pushover", token: "short", user: "u".repeat(30) }])).toThrow(
      "pushover token must be 30 letters and digits",
    );
    expect(() => parseNotifications([{ type: "sms", to: "1" }])).toThrow(
      "Invalid notification: type must be one of 'email', 'webhook', 'slack', 'discord', 'teams', 'telegram', 'ntfy', 'mattermost', 'googlechat', 'matrix', 'pushover', 'gotify', 'apprise'",
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
    "discord://SECRETid",
    "discord://1/SECRETtoken?ping=SECRETping",
    "tgram://123456789:SECRETtokenSECRETtoken",
    "tgram://123456789:SECRETtokenSECRETtoken/1/2",
    "ntfys://user:SECRETpass@push.example.com/alerts",
    "https://example.com/hooks/SECRETpath",
    "SECRET not a url at all",
    "workflows://host/SECRETid",
    "slack://[SECRET",
    "matrixs://user:SECRETpassword@matrix.example.org/!room:example.org",
    "matrixs://SECRETtoken@matrix.example.org/#alias:example.org",
    "pover://SECRETuserkeySECRETuserkey1234@SECRETapptokenSECRETapptoken12/DEVICE",
    "apprises://user:SECRET@apprise.example.com/SECRETkey",
    "mmosts://chat.example.com/SECRETtoken?mode=bot",
    "gchat://workspace/SECRETkey",
    "gotifys://push.example.com",
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

  it("watchctl says which options of an accepted URL it ignores, naming the URL by its scheme only", async () => {
    const { notificationsFrom } = await import("@/client/cli/options");
    let stderr = "";
    const err = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true));
    try {
      const [config] = notificationsFrom({ notify: ["discord://1/SECRETtoken?format=markdown&footer=no"] })!;
      expect(config).toEqual({ type: "discord", url: "https://discord.com/api/webhooks/1/SECRETtoken" });
      expect(stderr).toBe("watchctl: --notify discord://…: ignored (Watch sends its own layout): format, footer\n");
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
