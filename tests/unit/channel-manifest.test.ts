/**
 * `watchctl export` and `apply` with chat channels: every secret a channel marks (a chat URL, an ntfy topic, a bot or
 * access token) is written as <redacted>, and applying the file keeps the watch's stored channels (the API keeps a secret
 * sent back as it reads it).
 */
import { describe, expect, it } from "vitest";
import type { Task } from "@/client";
import { exportManifest, parseManifest, plan, REDACTED } from "@/client/manifest";

const task = () =>
  ({
    id: "11111111-1111-4111-8111-111111111111",
    name: "Chatty",
    search_query: "q",
    condition_description: "c",
    state: "active",
    is_public: false,
    min_confidence: 0.6,
    min_sources: 1,
    min_interval_minutes: 5,
    max_interval_minutes: 43200,
    // As the API reads them: secrets redacted.
    notifications: [
      { type: "slack", url: "https://hooks.slack.com/…WXYZ" },
      { type: "telegram", bot_token: "…1234", chat_id: "-1001" },
      { type: "ntfy", url: "https://ntfy.sh/…hone", token: "…abcd" },
    ],
  }) as unknown as Task;

describe("chat channels in a manifest", () => {
  it("are exported with their secrets as <redacted>, the rest as read", () => {
    const exported = exportManifest([task()], "json");
    const [watch] = JSON.parse(exported).watches;
    expect(watch.notifications).toEqual([
      { type: "slack", url: REDACTED },
      { type: "telegram", bot_token: REDACTED, chat_id: "-1001" },
      { type: "ntfy", url: REDACTED, token: REDACTED }, // a public topic is its only credential
    ]);
  });

  it("apply keeps the stored channels, and a misspelt field is refused", () => {
    const exported = exportManifest([task()], "yaml");
    expect(plan(parseManifest(exported), [task()])).toMatchObject([{ kind: "unchanged", name: "Chatty" }]);
    const edited = parseManifest(exported.replace('chat_id: "-1001"', 'chat_id: "@news"'));
    const [step] = plan(edited, [task()]);
    expect(step).toMatchObject({ kind: "update", fields: ["notifications"] });
    const telegram = step!.kind === "update" ? step!.definition.notifications.find((n) => n.type === "telegram") : null;
    expect(telegram).toEqual({ type: "telegram", bot_token: "…1234", chat_id: "@news" });
    expect(() => parseManifest(exported.replace("chat_id:", "chat:"))).toThrow();
  });
});
