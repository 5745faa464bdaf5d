/**
 * `watchctl mcp`: Watch's tools for a desktop assistant over stdio. The tools live in the service, at its MCP endpoint
 * (POST /mcp); this relays every MCP message between the assistant (stdin/stdout) and that endpoint, with the SDK
 * client's credentials, timeouts and retries. So both transports serve one server: the same tool list (names,
 * descriptions, annotations, schemas), answers and errors, and whatever a newer server offers shows up here without
 * updating this checkout. Nothing but MCP messages is written to stdout; notes go to stderr.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  ErrorCode,
  InitializeResultSchema,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { resilientFetch, type resolveConfig } from "./index";

type Config = ReturnType<typeof resolveConfig>;

/** Why a request to the service failed: its `detail` and status when it sent one. */
function reasonOf(e: unknown): string {
  if (e instanceof StreamableHTTPError) {
    const body = /endpoint: (\{.*\})$/s.exec(e.message)?.[1];
    try {
      const detail = body && (JSON.parse(body) as { detail?: unknown }).detail;
      if (typeof detail === "string") return `${detail} (${e.code})`;
    } catch {
      // not JSON: the message as it is
    }
  }
  const cause = (e as Error).cause as { code?: string; message?: string } | undefined;
  return `${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`;
}

/** Relays stdio to `{baseUrl}/mcp` until the assistant closes stdin. */
export async function serveStdio(config: Config, log: (line: string) => void): Promise<void> {
  const endpoint = new URL("/mcp", config.baseUrl + "/");
  const service = new StreamableHTTPClientTransport(endpoint, { fetch: resilientFetch(config, globalThis.fetch) });
  const assistant = new StdioServerTransport();
  const initializing = new Set<string | number>();

  assistant.onmessage = async (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === "initialize") initializing.add(message.id);
    try {
      await service.send(message);
    } catch (e) {
      // Logged by service.onerror. The assistant waits for an answer to each request: the failure is that answer.
      if (isJSONRPCRequest(message))
        await assistant.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: `Watch at ${endpoint.href}: ${reasonOf(e)}` },
        });
    }
  };
  service.onmessage = async (message: JSONRPCMessage) => {
    // The HTTP transport names the negotiated protocol version on every later request, as an SDK client would.
    if (initializing.size && isJSONRPCResultResponse(message) && initializing.delete(message.id)) {
      const initialized = InitializeResultSchema.safeParse(message.result);
      if (initialized.success) service.setProtocolVersion(initialized.data.protocolVersion);
    }
    await assistant.send(message);
  };
  service.onerror = (e) => log(`watchctl mcp: Watch at ${endpoint.href}: ${reasonOf(e)}`);
  assistant.onerror = (e) => log(`watchctl mcp: ${reasonOf(e)}`);

  await service.start();
  await assistant.start();
  log(`watchctl mcp: relaying MCP on stdio to ${endpoint.href}`);
  await new Promise<void>((resolve) => process.stdin.once("end", resolve).once("close", resolve));
  await Promise.all([assistant.close(), service.close()]);
}
