// Floor (1): bare node:http + pg doing the same work as the product's endpoints.
import http from "node:http";
import { createFloor } from "./floor-sql.mjs";

const floor = createFloor(process.env.DATABASE_URL);
const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
http
  .createServer((req, res) => handle(req, res).catch(() => res.destroy()))
  .listen(Number(process.env.PORT), "127.0.0.1", () => console.log("Watch ready on floor"));

async function handle(req, res) {
  const userId = await floor.authenticate(req.headers.authorization);
  if (!userId) return json(res, 401, { detail: "Invalid API key" });
  const url = new URL(req.url, "http://x");
  if (req.method === "GET" && url.pathname === "/api/v1/tasks") return json(res, 200, await floor.list(userId));
  const m = /^\/api\/v1\/tasks\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (req.method === "GET" && m) return json(res, 200, await floor.get(userId, m[1]));
  if (req.method === "POST" && url.pathname === "/api/v1/tasks") {
    let body = "";
    for await (const c of req) body += c;
    return json(res, 200, await floor.create(userId, JSON.parse(body)));
  }
  json(res, 404, { detail: "Not Found" });
}
