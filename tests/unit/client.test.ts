import fs from "node:fs";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createClient, HOSTED_URL, LOCAL_URL, resolveConfig, verifyWebhook } from "@/client";
import { readSnapshot, renderTypes, TYPES } from "@/client/generate";

describe("SDK", () => {
  it("client/openapi.d.ts is generated from client/openapi.json (run `npm run client:generate`)", async () => {
    expect(fs.readFileSync(TYPES, "utf8")).toBe(await renderTypes(readSnapshot()));
  });

  it("configuration: options, then SERVICE_* variables; NOAUTH means localhost and no key", () => {
    expect(resolveConfig({}, {})).toMatchObject({ baseUrl: HOSTED_URL, apiKey: undefined, noauth: false });
    expect(resolveConfig({}, { SERVICE_NOAUTH: "1", SERVICE_API_KEY: "sk_x" })).toMatchObject({
      baseUrl: LOCAL_URL,
      apiKey: undefined,
      noauth: true,
    });
    expect(resolveConfig({}, { SERVICE_API_KEY: "sk_x", SERVICE_URL: "https://w.example/" })).toMatchObject({
      baseUrl: "https://w.example",
      apiKey: "sk_x",
    });
    expect(
      resolveConfig(
        { apiKey: "sk_o", baseUrl: "http://h:1" },
        { SERVICE_API_KEY: "sk_x", SERVICE_URL: "https://w.example" },
      ),
    ).toMatchObject({ baseUrl: "http://h:1", apiKey: "sk_o" });
  });

  it("retries 503 with backoff and sends the key; times out a hung request", async () => {
    const seen: string[] = [];
    let calls = 0;
    const sdk = createClient({
      apiKey: "sk_test",
      baseUrl: "http://api.test",
      fetch: async (input) => {
        const req = input as Request;
        seen.push(req.headers.get("authorization") ?? "");
        return ++calls < 3 ? new Response("{}", { status: 503 }) : Response.json([]);
      },
    });
    expect(await sdk.watches.list()).toEqual([]);
    expect(calls).toBe(3);
    expect(new Set(seen)).toEqual(new Set(["Bearer sk_test"]));

    const hung = createClient({
      baseUrl: "http://api.test",
      timeoutMs: 50,
      maxRetries: 0,
      fetch: (_input, init) =>
        new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))),
    });
    await expect(hung.me()).rejects.toThrow(/timeout|aborted/i);
  });

  it("verifies Standard Webhooks signatures on the receiving side", () => {
    const secret = "whsec_" + Buffer.from("a".repeat(32)).toString("base64");
    const body = JSON.stringify({ type: "watch.finding", data: { task_id: "t" } });
    const id = "msg_1";
    const timestamp = new Date();
    const signature = new Webhook(secret).sign(id, timestamp, body);
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    };
    expect(verifyWebhook(secret, headers, body)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, new Headers(headers), body)).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(secret, headers, body.replace("t", "u"))).toThrow();
  });
});
