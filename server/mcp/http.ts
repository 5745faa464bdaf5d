/**
 * POST /mcp: Watch's tools (./tools) over MCP's Streamable HTTP transport, stateless, answered as JSON (no event
 * streams, no sessions: any replica answers any request). Every request is authenticated like the REST API, by
 * `Authorization: Bearer` (API key or session token; the session cookie is not accepted, so a web page cannot borrow
 * a signed-in browser), or as the test user with SERVICE_NOAUTH=1 from this machine; without it the answer is 401
 * before any MCP message is read. Browsers get no CORS grant, and a request a browser sent from another origin is
 * refused (MCP asks servers to check Origin against DNS rebinding).
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { version } from "../../package.json";
import { jsonTooDeep, TOO_DEEP } from "../api/json";
import { REFUSED } from "../api/wire";
import { authenticate } from "../auth";
import { DomainError, isDomainError } from "../errors";
import { callTool, TOOLS } from "./tools";

const INSTRUCTIONS =
  "Watch keeps an eye on the web for the user: a watch holds a search query and a condition; an AI agent checks it " +
  "with grounded web search, picks its own next check, and notifies the user on their channels when the " +
  "condition is met. Ids and JSON call a watch a task. To start one: preview_watch (optional), then create_watch. " +
  "To see results: list_findings or get_watch. Others' public watches: search_public_watches, then follow_watch.";

/**
 * JSON-RPC messages in one HTTP request (MCP clients send one; older protocol versions may batch): the answers to a
 * request are held in memory together, and one list of 1,000 watches is ~1.6 MB, twice (as JSON and as text).
 */
const MAX_MESSAGES = 10;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });

/** A JSON-RPC error outside any request (the body could not be read as one). */
const rpcError = (status: number, code: number, message: string) =>
  json(status, { jsonrpc: "2.0", error: { code, message }, id: null });

/** Fetch Metadata, else Origin: a browser's request from another site (other clients send neither). */
function fromAnotherOrigin(request: Request) {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  return !URL.canParse(origin) || new URL(origin).host !== (request.headers.get("host") ?? "").toLowerCase();
}

/** One MCP server per request (stateless): its tools act as `caller`. */
function serverFor(call: Parameters<typeof callTool>[2]) {
  const server = new Server({ name: "watch", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const result = await callTool(params.name, params.arguments ?? {}, call);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    return result;
  });
  return server;
}

/** Errors thrown here (authentication, the database) are answered by the route's pipeline (server/http/route.ts). */
export async function handleMcp(request: Request): Promise<Response> {
  if (request.method !== "POST")
    return json(
      405,
      { detail: "Method Not Allowed: MCP clients POST JSON-RPC messages here (stateless, no event stream)" },
      { allow: "POST" },
    );
  if (fromAnotherOrigin(request)) return json(403, { detail: "Cross-origin request refused" });

  const requestId = request.headers.get("x-request-id") ?? randomUUID();
  const headers = new Headers(request.headers);
  headers.set("x-request-id", requestId);
  const caller = await authenticate(headers, headers.get("x-watch-client-ip")).catch((e: unknown) => {
    throw isDomainError(e, "unauthorized")
      ? new DomainError("unauthorized", e.message, { headers: { "www-authenticate": 'Bearer realm="Watch"' } })
      : e;
  });
  const user = caller.user;
  if (!user) throw new DomainError("not_found", REFUSED.notSynced);

  const text = await request.text();
  if (jsonTooDeep(text)) return rpcError(400, -32700, `Parse error: ${TOO_DEEP}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(body) && body.length > MAX_MESSAGES)
    return rpcError(400, -32600, `Invalid Request: at most ${MAX_MESSAGES} messages per request`);

  const server = serverFor({ caller: { ...caller, user }, headers });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: body });
    response.headers.set("x-request-id", requestId);
    return response;
  } finally {
    await server.close();
  }
}
