/** `watchctl mcp`: Watch's MCP tools over stdio, relayed to the server as your account (../mcp.ts). */
import { stderr, type Cli } from "./context";

/** How long `watchctl mcp` waits for one tool call (the server stops an agent run after 2 minutes by default). */
const MCP_CALL_TIMEOUT_MS = 180_000;

export function register({ program, client }: Cli) {
  program
    .command("mcp")
    .description(
      "serve Watch's tools to an AI assistant (Claude Desktop, Claude Code, any MCP client) over stdio, as your account",
    )
    .action(async () => {
      const { serveStdio } = await import("../mcp");
      // A tool call may run the agent once (preview_watch): allow it the server's own run timeout and more.
      await serveStdio({ ...client().config, timeoutMs: MCP_CALL_TIMEOUT_MS }, (line) => stderr(`${line}\n`));
    });
}
