/** `watchctl run <id>`: check a watch now (and with --wait, print how the check ended). */
import type { WatchClient } from "../index";
import { stderr, type Cli } from "./context";
import { EXECUTION_COLUMNS, executionRow, table } from "./format";

async function waitFor(client: WatchClient, taskId: string, executionId: string, timeoutMs = 300_000) {
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    const found = (await client.watches.executions(taskId, { limit: 20 })).find((e) => e.id === executionId);
    if (found && found.status !== "pending" && found.status !== "running") {
      if (process.stderr.isTTY) stderr("\r\x1b[K");
      return found;
    }
    if (Date.now() > deadline)
      throw new Error(`gave up waiting after ${timeoutMs / 1000} s; see \`watchctl logs ${taskId}\``);
    if (process.stderr.isTTY) stderr(`\r${frames[i % frames.length]} the agent is checking…`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export function register({ program, client, print }: Cli) {
  program
    .command("run <id>")
    .description("check a watch now")
    .option("--force", "start even if a check is pending or running")
    .option("--wait", "wait for the check to finish and print its result")
    .action(async (id: string, o: { force?: boolean; wait?: boolean }) => {
      const c = client();
      const started = await c.watches.execute(id, { force: o.force });
      const execution = o.wait ? await waitFor(c, id, started.id) : started;
      print(execution, () => table([executionRow(execution)], EXECUTION_COLUMNS));
      if (o.wait && execution.status === "failed")
        throw new Error(`the check failed: ${execution.error_message ?? "no reason given"}`);
    });
}
