/**
 * What every watchctl command shares: the program (global options), the client it calls the API with (credentials
 * from --key/--url, else SERVICE_API_KEY/SERVICE_URL/SERVICE_NOAUTH, else `watchctl login`'s config file), and how
 * it answers (a human text, or JSON with --json).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline/promises";
import type { Command } from "commander";
import { createClient, envFlag, type WatchClient } from "../index";

export const stdout = (s: string) => process.stdout.write(s);
export const stderr = (s: string) => process.stderr.write(s);

/** A mistake in the command line: exit code 2, the message on stderr. */
export class UsageError extends Error {}

type Saved = { url?: string; apiKey?: string };

export function configPath() {
  const base = process.env.XDG_CONFIG_HOME || path.join(process.env.HOME || os.homedir(), ".config");
  return path.join(base, "watchctl", "config.json");
}

function readSaved(): Saved {
  try {
    return JSON.parse(fs.readFileSync(configPath(), "utf8")) as Saved;
  } catch {
    return {};
  }
}

/** Saves a login, readable only by its owner. */
export function save(saved: Saved) {
  const file = configPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(saved, null, 2) + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

export async function ask(question: string) {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export type Globals = { url?: string; key?: string; json?: boolean };

/** What a command module is handed: the program to add its command to, and the shared client and output. */
export type Cli = {
  program: Command;
  globals(): Globals;
  client(): WatchClient;
  /** `value` as JSON with --json, else `human()`. */
  print(value: unknown, human: () => string): void;
};

export function cliOf(program: Command): Cli {
  const globals = () => program.opts<Globals>();
  return {
    program,
    globals,
    client() {
      const g = globals();
      const noauth = !g.key && envFlag(process.env.SERVICE_NOAUTH);
      // Development mode talks to the local server: a saved login (a deployment's key and URL) does not apply.
      const saved = noauth ? {} : readSaved();
      return createClient({
        apiKey: g.key ?? process.env.SERVICE_API_KEY ?? saved.apiKey,
        noauth,
        baseUrl: g.url ?? process.env.SERVICE_URL ?? saved.url,
        maxRetries: 2,
      });
    },
    print: (value, human) => stdout(globals().json ? JSON.stringify(value, null, 2) + "\n" : human()),
  };
}
