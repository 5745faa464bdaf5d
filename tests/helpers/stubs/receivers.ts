/** Stubs for delivery: the Resend API (RESEND_BASE_URL) and a webhook receiver. */
import { startStub, type StubReply, type StubRequest } from "./http";

export async function startResendStub(reply: () => StubReply = () => ({ json: { id: `email_${Date.now()}` } })) {
  // GET /sent lists what was sent, for tests in another process (the browser tests' workers).
  const stub = await startStub((req) =>
    req.method === "POST" && req.url.startsWith("/emails")
      ? reply()
      : req.method === "GET" && req.url === "/sent"
        ? { json: emails() }
        : { status: 404, json: {} },
  );
  const emails = () =>
    stub.requests.filter((r) => r.method === "POST" && r.url.startsWith("/emails")).map((r) => JSON.parse(r.body));
  return { ...stub, emails };
}

export async function startWebhookReceiver(
  reply: (req: StubRequest) => StubReply = () => ({ status: 200, text: "ok" }),
) {
  return startStub((req) => reply(req));
}
