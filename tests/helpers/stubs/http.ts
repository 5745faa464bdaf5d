/**
 * A tiny local HTTP server for stubbing an external service in tests. Tests in another process (the black-box
 * tier's workers, browser tests) read what it received at `GET /__stub/requests` and steer it with
 * `POST /__stub/control` (a JSON message handed to the function given to `onControl`); ./index.ts says which messages each stub takes.
 */
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
  let control: (message: any) => void = () => {};
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const request = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
      if (request.url === "/__stub/requests")
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(requests));
      if (request.url === "/__stub/control") {
        control(JSON.parse(body));
        return void res.writeHead(204).end();
      }
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
    onControl: (handler: (message: any) => void) => void (control = handler),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
