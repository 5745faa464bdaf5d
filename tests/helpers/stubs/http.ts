/** A tiny local HTTP server for stubbing an external service in tests. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StubRequest = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
export type StubReply = {
  status?: number;
  json?: unknown;
  text?: string;
  delayMs?: number;
  headers?: Record<string, string>;
};

export async function startStub(handle: (req: StubRequest) => StubReply | Promise<StubReply>) {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const request = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
      requests.push(request);
      const reply = await handle(request);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      res.writeHead(reply.status ?? 200, {
        "content-type": reply.json !== undefined ? "application/json" : "text/plain",
        ...reply.headers,
      });
      res.end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? ""));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
