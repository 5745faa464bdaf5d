/** The pages' Content-Security-Policy: Clerk's host read from the publishable key, and nothing else can get in. */
import { describe, expect, it } from "vitest";
import { clerkFrontendApi, contentSecurityPolicy } from "@/server/http/csp";

const pk = (host: string, kind = "test") => `pk_${kind}_${Buffer.from(`${host}$`).toString("base64")}`;

describe("clerkFrontendApi", () => {
  it("reads the Frontend API host of development and production keys", () => {
    expect(clerkFrontendApi("pk_test_ZXhhbXBsZS5jbGVyay5hY2NvdW50cy5kZXYk")).toBe("example.clerk.accounts.dev");
    expect(clerkFrontendApi(pk("clerk.watch.example.com", "live"))).toBe("clerk.watch.example.com");
  });

  it("gives nothing for anything that is not a plain host name", () => {
    for (const key of [
      undefined,
      "",
      "sk_test_abc",
      pk("evil.example; script-src *"),
      pk("evil.example'"),
      pk("a b"),
      `pk_test_${Buffer.from("example.com").toString("base64")}`,
      "pk_test_!!!",
    ])
      expect(clerkFrontendApi(key), String(key)).toBeNull();
  });
});

describe("contentSecurityPolicy", () => {
  it("puts the nonce in script-src and allows no Clerk host without a publishable key", () => {
    const policy = contentSecurityPolicy("abc123==", "/dashboard");
    expect(policy).toContain("script-src 'self' 'nonce-abc123==' 'strict-dynamic';");
    expect(policy).toMatch(/frame-ancestors 'none'$/);
    expect(policy).not.toContain("clerk");
    expect(contentSecurityPolicy("other", "/")).toContain("'nonce-other'");
  });
});
