/**
 * The pure parts of the second hardening round: the mailbox every email cap counts by, the client an address stands
 * for in per-IP limits (an IPv6 /64), owner-chosen text made inert for mail, domain validation errors recognised by
 * name through tRPC (zod's own ZodError is no Error subclass), and secrets left out of `watchctl export`.
 */
import { initTRPC } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { exportManifest, parseManifest, plan, REDACTED } from "@/client/manifest";
import type { Task } from "@/client";
import { isZodError } from "@/server/api/errors";
import { validationError } from "@/server/errors";
import { clientGroup, isTrustedProxy, parseTrustProxy } from "@/server/net/client-address.mjs";
import { mailboxOf } from "@/server/notify/mailbox";
import { defang } from "@/lib/defang";

describe("mailboxOf", () => {
  it.each([
    ["victim@example.com", "victim@example.com"],
    ["Victim+1@Example.COM", "victim@example.com"],
    ["victim+a+b@example.com", "victim@example.com"],
    ["  victim@example.com ", "victim@example.com"],
    ["+tagonly@example.com", "+tagonly@example.com"],
    ["first.last@example.com", "first.last@example.com"],
    ["First.Last+news@gmail.com", "firstlast@gmail.com"],
    ["f.i.r.s.t.l.a.s.t@googlemail.com", "firstlast@gmail.com"],
    ["first.last@gmail.com.evil.example", "first.last@gmail.com.evil.example"],
    ['"odd@local"@example.com', '"odd@local"@example.com'],
    ["not-an-address", "not-an-address"],
  ])("%s -> %s", (address, mailbox) => expect(mailboxOf(address)).toBe(mailbox));
});

describe("per-IP limits", () => {
  it("count an IPv6 address by its /64, an IPv4 address as itself", () => {
    expect(clientGroup("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:2::ffff")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:0db8:0001:0002:0000:0000:0000:0001")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientGroup("::1")).toBe("::/64");
    expect(clientGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(clientGroup("::ffff:203.0.113.7")).toBe("203.0.113.7"); // IPv4-mapped: the IPv4 client
    expect(clientGroup("[2001:db8:1:2::9]:443")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("unknown")).toBe("unknown");
  });

  it("a trusted proxy's connections are told apart from a client's", () => {
    expect(isTrustedProxy("10.0.0.5", null)).toBe(false);
    expect(isTrustedProxy("203.0.113.7", parseTrustProxy("1"))).toBe(true);
    const ranges = parseTrustProxy("10.0.0.0/8,fd00::/8");
    expect(isTrustedProxy("10.1.2.3", ranges)).toBe(true);
    expect(isTrustedProxy("::ffff:10.1.2.3", ranges)).toBe(true);
    expect(isTrustedProxy("fd12::1", ranges)).toBe(true);
    expect(isTrustedProxy("203.0.113.7", ranges)).toBe(false);
  });
});

describe("defang", () => {
  it.each([
    ["WIN A PRIZE at https://win-prize.com/claim now", "WIN A PRIZE at hxxps://win-prize[.]com/claim now"],
    ["HTTP://Evil.Example/x", "HXXP://Evil[.]Example/x"],
    ["see www.prize.example today", "see www[.]prize[.]example today"],
    ["mail me at win@prize.com.", "mail me at win@prize[.]com."],
    ["bit.ly/abc", "bit[.]ly/abc"],
    ["http://1.2.3.4:8080/x and 5.6.7.8", "hxxp://1[.]2[.]3[.]4:8080/x and 5[.]6[.]7[.]8"],
    ["Next.js 16 release, v1.2.3, e.g. Node.js", "Next.js 16 release, v1.2.3, e.g. Node.js"],
    ["iPhone 18 release date", "iPhone 18 release date"],
  ])("%s", (text, inert) => expect(defang(text)).toBe(inert));
});

describe("domain validation errors", () => {
  it("keep their issues through tRPC and are recognised by name, not class", async () => {
    expect(new z.ZodError([]) instanceof Error).toBe(false); // why class identity cannot be the test
    const error = validationError("min_interval_minutes", "too big", { min_interval_minutes: 300 });
    expect(isZodError(error)).toBe(true);
    expect(isZodError({ name: "ZodError", issues: [] })).toBe(true);
    expect(isZodError(new Error("ZodError"))).toBe(false);

    const t = initTRPC.create();
    const router = t.router({
      fail: t.procedure.query(() => {
        throw error;
      }),
    });
    const caught = await router
      .createCaller({})
      .fail()
      .catch((e: unknown) => e);
    const cause = (caught as { cause?: unknown }).cause;
    expect(isZodError(cause)).toBe(true);
    expect((cause as { issues: { path: string[]; message: string }[] }).issues).toMatchObject([
      { path: ["min_interval_minutes"], message: "too big", input: 300 },
    ]);
  });
});

describe("watchctl export and apply", () => {
  const task = (over: Partial<Task> = {}) =>
    ({
      id: "11111111-1111-4111-8111-111111111111",
      name: "Hooked",
      search_query: "q",
      condition_description: "c",
      state: "active",
      is_public: false,
      min_confidence: 0.6,
      min_sources: 1,
      min_interval_minutes: 5,
      max_interval_minutes: 43200,
      notifications: [
        { type: "email", address: "me@example.com" },
        {
          type: "webhook",
          url: "https://hooks.example.com/in",
          method: "POST",
          headers: { Authorization: "Bearer s3cret", "X-Team": "blue" },
        },
      ],
      ...over,
    }) as unknown as Task;

  it("writes every webhook header value as <redacted> unless asked, and apply keeps the stored values", () => {
    const exported = exportManifest([task()], "yaml");
    expect(exported).not.toContain("s3cret");
    expect(exported).not.toContain("blue");
    expect(exported).toContain(`Authorization: ${REDACTED}`);
    expect(exportManifest([task()], "json", { includeSecrets: true })).toContain("Bearer s3cret");

    const steps = plan(parseManifest(exported), [task()]);
    expect(steps).toMatchObject([{ kind: "unchanged", name: "Hooked" }]);

    // A changed field is applied with the stored secrets, not the placeholder.
    const edited = parseManifest(exported.replace("search_query: q", "search_query: q2"));
    const update = plan(edited, [task()])[0]!;
    expect(update).toMatchObject({ kind: "update", fields: ["search_query"] });
    const hook = update.kind === "update" ? update.definition.notifications.find((n) => n.type === "webhook") : null;
    expect(hook).toMatchObject({ headers: { Authorization: "Bearer s3cret", "X-Team": "blue" } });

    // A value written out replaces the stored one.
    const rotated = parseManifest(exported.replace(`Authorization: ${REDACTED}`, "Authorization: Bearer n3w"));
    expect(plan(rotated, [task()])).toMatchObject([{ kind: "update", fields: ["notifications"] }]);
  });

  it("refuses a <redacted> value with nothing stored to keep", () => {
    const exported = exportManifest([task()], "yaml");
    expect(() => plan(parseManifest(exported), [])).toThrow(
      /webhook header "Authorization", webhook header "X-Team" are <redacted> and the watch has no value to keep/,
    );
    expect(() => plan(parseManifest(exported), [task({ notifications: [] })])).toThrow(/no value to keep/);
  });
});
