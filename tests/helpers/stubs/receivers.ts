/** Stubs for delivery: the Resend API (RESEND_BASE_URL) and a webhook receiver. */
import { startStub, type StubReply } from "./http";

export async function startResendStub(reply: () => StubReply = () => ({ json: { id: `email_${Date.now()}` } })) {
  const stub = await startStub((req) => (req.method === "POST" && req.url.startsWith("/emails") ? reply() : { status: 404, json: {} }));
  return { ...stub, emails: () => stub.requests.filter((r) => r.url.startsWith("/emails")).map((r) => JSON.parse(r.body)) };
}

export async function startWebhookReceiver(reply: () => StubReply = () => ({ status: 200, text: "ok" })) {
  return startStub(() => reply());
}
