/**
 * watchctl: the Watch API from a terminal. Human tables by default, `--json` for scripts.
 * Exit codes: 0 ok, 1 API error (the server's `detail` on stderr), 2 usage error.
 * Credentials: --key/--url, else SERVICE_API_KEY/SERVICE_URL/SERVICE_NOAUTH, else `watchctl login`'s config file.
 * Each command is a module of ./cli/, in the order `watchctl --help` lists them.
 */
import { Command, CommanderError } from "commander";
import { ApiError } from "./index";
import { cliOf, stderr, stdout, UsageError, type Cli } from "./cli/context";
import * as create from "./cli/create";
import * as remove from "./cli/delete";
import * as findings from "./cli/findings";
import * as follow from "./cli/follow";
import * as fork from "./cli/fork";
import * as history from "./cli/history";
import * as keys from "./cli/keys";
import * as list from "./cli/list";
import * as login from "./cli/login";
import * as logs from "./cli/logs";
import * as manifest from "./cli/manifest";
import * as mcp from "./cli/mcp";
import * as preview from "./cli/preview";
import * as run from "./cli/run";
import * as sends from "./cli/sends";
import * as settings from "./cli/settings";
import * as show from "./cli/show";
import * as state from "./cli/state";
import * as update from "./cli/update";
import * as usage from "./cli/usage";
import * as visibility from "./cli/visibility";

const COMMANDS: { register(cli: Cli): void }[] = [
  login,
  create,
  list,
  show,
  update,
  state,
  run,
  logs,
  findings,
  remove,
  visibility,
  fork,
  sends,
  history,
  preview,
  follow,
  settings,
  usage,
  manifest,
  mcp,
  keys,
];

function buildProgram() {
  const program = new Command("watchctl")
    .description("Watch from the terminal: describe what to keep an eye on; an AI agent checks the web and tells you.")
    .option("--url <url>", "API base URL (default SERVICE_URL, or the saved login)")
    .option("--key <key>", "API key (default SERVICE_API_KEY, or the saved login)")
    .option("--json", "print JSON instead of tables")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: stdout, writeErr: stderr });
  const cli = cliOf(program);
  for (const command of COMMANDS) command.register(cli);
  return program;
}

/** Runs one command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof UsageError) {
      stderr(`watchctl: ${e.message}\n`);
      return 2;
    }
    if (e instanceof ApiError) {
      stderr(`Error${e.status ? ` (${e.status})` : ""}: ${e.message}\n`);
      if (e.status === 401)
        stderr(
          "Check your API key: `watchctl login --key <key>`, SERVICE_API_KEY, or SERVICE_NOAUTH=1 for a local server.\n",
        );
      return 1;
    }
    const cause = (e as Error).cause as { code?: string; message?: string } | undefined;
    stderr(`Error: ${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}\n`);
    return 1;
  }
}
