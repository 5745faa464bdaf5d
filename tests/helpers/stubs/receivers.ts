/** Stubs for delivery: the Resend API (RESEND_BASE_URL) and a webhook receiver. */
import { startStub, type StubReply, type StubRequest } from "./http";

export async function startResendStub(
  reply: () => StubReply | Promise<StubReply> = () => ({ json: { id: `email_${Date.now()}` } }),
) {
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
  return { ...stub, emails, linkIn: (to: string, path: string) => newestLink(emails(), to, path) };
}

/** The newest link to `path` (e.g. /follow/confirm) in the newest of `emails` to `to` that has one. */
export function newestLink(emails: { to: unknown; html: string }[], to: string, path: string): URL | undefined {
  const pattern = new RegExp(`https?://[^"\\s]+${path}\\?[^"\\s]+`);
  const mail = emails.findLast((m) => m.to === to && pattern.test(m.html));
  return mail ? new URL(pattern.exec(mail.html)![0].replace(/&amp;/g, "&")) : undefined;
}

export async function startWebhookReceiver(
  reply: (req: StubRequest) => StubReply = () => ({ status: 200, text: "ok" }),
) {
  return startStub((req) => reply(req));
}
