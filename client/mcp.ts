/**
 * `watchctl mcp`: Watch's tools for a desktop assistant over stdio. The service's own MCP endpoint (POST /mcp) holds
 * the tools; this relays the assistant's tool listing and calls to it with the SDK client's credentials, timeouts and
 * retries, so both transports serve one tool list (names, descriptions, annotations, schemas) and one behaviour, and
 * a newer server's tools show up without updating this checkout. Nothing but MCP messages is written to stdout.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { resilientFetch, type resolveConfig } from "./index";

type Config = ReturnType<typeof resolveConfig>;

/** The reason a request to the service failed, as its `detail` when it sent one. */
export function reasonOf(e: unknown): string {
  if (e instanceof StreamableHTTPError) {
    const body = /endpoint: (\{.*\})$/s.exec(e.message)?.[1];
    try {
      const detail = body && (JSON.parse(body) as { detail?: unknown }).detail;
      if (typeof detail === "string") return `${detail} (${e.code})`;
    } catch {
      // not JSON: the message as it is
    }
  }
  if (e instanceof McpError) return e.message;
  const cause = (e as Error).cause as { code?: string; message?: string } | undefined;
  return `${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`;
}

/** Connects to `{baseUrl}/mcp` (failing if the service refuses the credentials), then serves stdio until stdin ends. */
export async function serveStdio(config: Config, log: (line: string) => void): Promise<void> {
  const endpoint = new URL("/mcp", config.baseUrl + "/");
  const remote = new Client({ name: "watchctl", version: "1" });
  try {
    await remote.connect(
      new StreamableHTTPClientTransport(endpoint, { fetch: resilientFetch(config, globalThis.fetch) }),
    );
  } catch (e) {
    throw new Error(`cannot use Watch's MCP endpoint ${endpoint.href}: ${reasonOf(e)}`);
  }

  const server = new Server(remote.getServerVersion() ?? { name: "watch", version: "unknown" }, {
    capabilities: { tools: {} },
    instructions: remote.getInstructions(),
  });
  // Relayed as they are: the service's answers are already checked against its own schemas.
  server.setRequestHandler(ListToolsRequestSchema, ({ params }) =>
    remote.request({ method: "tools/list", params }, ListToolsResultSchema),
  );
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    try {
      return await remote.request({ method: "tools/call", params }, CallToolResultSchema, {
        timeout: config.timeoutMs,
      });
    } catch (e) {
      if (e instanceof McpError) throw e;
      return { content: [{ type: "text", text: `Watch could not be reached: ${reasonOf(e)}` }], isError: true };
    }
  });
  server.onerror = (e) => log(`watchctl mcp: ${reasonOf(e)}`);

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once("end", () => void server.close());
  });
  await server.connect(new StdioServerTransport());
  log(`watchctl mcp: serving Watch's tools from ${endpoint.href} on stdio`);
  await closed;
  await remote.close();
}
