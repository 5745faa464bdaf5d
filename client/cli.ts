/**
 * watchctl: the Watch API from a terminal. Human tables by default, `--json` for scripts.
 * Exit codes: 0 ok, 1 API error (the server's `detail` on stderr), 2 usage error.
 * Credentials: --key/--url, else SERVICE_API_KEY/SERVICE_URL/SERVICE_NOAUTH, else `watchctl login`'s config file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline/promises";
import { Command, CommanderError, Option } from "commander";
import {
  ApiError,
  createClient,
  envFlag,
  outcomeOf,
  type Execution,
  type Finding,
  type Notification,
  type NotificationType,
  type SendEvent,
  type Task,
  type WatchClient,
} from "./index";
import { APPRISE_SCHEMES, AppriseError, channelOf, CHANNELS, parseApprise } from "../channels";

const env = process.env;
const stdout = (s: string) => process.stdout.write(s);
const stderr = (s: string) => process.stderr.write(s);

type Saved = { url?: string; apiKey?: string };

function configPath() {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "watchctl", "config.json");
}

function readSaved(): Saved {
  try {
    return JSON.parse(fs.readFileSync(configPath(), "utf8")) as Saved;
  } catch {
    return {};
  }
}

function save(saved: Saved) {
  const file = configPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(saved, null, 2) + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

class UsageError extends Error {}

/** The manifest module (YAML and zod) loads only for export and apply: a third of every other command's start-up. */
const manifest = () => import("./manifest");
/** How long `watchctl mcp` waits for one tool call (the server stops an agent run after 2 minutes by default). */
const MCP_CALL_TIMEOUT_MS = 180_000;

async function ask(question: string) {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (!rows.length) return "(none)\n";
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? "")));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((row) => row[i]!.length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (v.length > widths[i]! ? v.slice(0, widths[i]! - 1) + "…" : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

const outcome = (e: Execution | null | undefined) =>
  e?.status === "cancelled" || e?.status === "pending" ? e.status : outcomeOf(e);
const taskRow = (t: Task) => ({
  id: t.id,
  name: t.name,
  state: t.state,
  last: outcome(t.last_execution),
  next_run: t.state === "active" ? (t.next_run ?? "") : "",
});
/** A finding as text: its title, its standing and dates, its answer. */
const findingText = (f: Finding) =>
  `${f.title}\n  ${[
    f.status === "held"
      ? `held: ${f.gate_reason}`
      : f.status === "retracted"
        ? `retracted ${f.retracted_at}`
        : f.status,
    `first found ${f.first_found_at}`,
    `confirmed ${f.confirmations}×${f.confirmations > 1 ? `, last ${f.last_confirmed_at}` : ""}`,
  ].join(" · ")}\n  ${f.answer.replaceAll("\n", "\n  ")}\n`;

const executionRow = (e: Execution) => ({
  id: e.id,
  status: e.status,
  result: outcome(e),
  started: e.started_at,
  detail: e.error_message ?? e.result?.answer.split("\n")[0] ?? "",
});

function describeTask(t: Task): string {
  const lines = [
    `${t.name}  (${t.id})`,
    `  query:      ${t.search_query}`,
    `  condition:  ${t.condition_description}`,
    `  state:      ${t.state}${t.is_public ? ", public" : ""}`,
    `  last:       ${outcome(t.last_execution)}${t.last_execution?.completed_at ? ` at ${t.last_execution.completed_at}` : ""}`,
    `  next run:   ${t.state === "active" ? (t.next_run ?? "—") : "—"}`,
    `  notify:     ${t.notifications.map(channelLine).join(", ") || "—"}`,
  ];
  const answer = t.last_execution?.result?.answer;
  if (answer) lines.push("", answer);
  return lines.join("\n") + "\n";
}

/** "slack https://hooks.slack.com/…WXYZ": a channel's type and where it goes (secrets as the service shows them). */
const channelLine = (n: { type: string } & Record<string, unknown>) =>
  `${n.type} ${channelOf(n.type)?.summary(n) ?? ""}`;

type ChannelOptions = { email?: string; webhook?: string; notify?: string[] };

/** Collects a repeatable option's values. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The channels `--email`, `--webhook` and each `--notify <url>` (an Apprise URL or the service's own) give, replacing
 * those of the same type in `existing` and keeping the others; undefined when none was given.
 */
function notificationsFrom(opts: ChannelOptions, existing: Notification[] = []): Notification[] | undefined {
  const given: Notification[] = [];
  if (opts.email) given.push({ type: "email", address: opts.email });
  if (opts.webhook) given.push({ type: "webhook", url: opts.webhook });
  for (const url of opts.notify ?? []) {
    try {
      given.push(parseApprise(url) as Notification);
    } catch (e) {
      if (e instanceof AppriseError) throw new UsageError(`--notify ${url}: ${e.message}`);
      throw e;
    }
  }
  if (!given.length && opts.email === undefined && opts.webhook === undefined) return undefined;
  const types = given.map((n) => n.type);
  const twice = types.find((t, i) => types.indexOf(t) !== i);
  if (twice) throw new UsageError(`one ${twice} channel per watch: give it once`);
  // `--email ""` and `--webhook ""` remove that channel.
  const replaced = new Set<string>([
    ...types,
    ...(opts.email !== undefined ? ["email"] : []),
    ...(opts.webhook !== undefined ? ["webhook"] : []),
  ]);
  return [...existing.filter((n) => !replaced.has(n.type)), ...given];
}

const NOTIFY_HELP = `notify this channel (repeatable): an Apprise URL (${APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}) or the service's own URL`;

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

function buildProgram() {
  const program = new Command("watchctl")
    .description("Watch from the terminal: describe what to keep an eye on; an AI agent checks the web and tells you.")
    .option("--url <url>", "API base URL (default SERVICE_URL, or the saved login)")
    .option("--key <key>", "API key (default SERVICE_API_KEY, or the saved login)")
    .option("--json", "print JSON instead of tables")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: stdout, writeErr: stderr });

  const globals = () => program.opts<{ url?: string; key?: string; json?: boolean }>();
  const client = () => {
    const g = globals();
    const noauth = !g.key && envFlag(env.SERVICE_NOAUTH);
    // Development mode talks to the local server: a saved login (a deployment's key and URL) does not apply.
    const saved = noauth ? {} : readSaved();
    return createClient({
      apiKey: g.key ?? env.SERVICE_API_KEY ?? saved.apiKey,
      noauth,
      baseUrl: g.url ?? env.SERVICE_URL ?? saved.url,
      maxRetries: 2,
    });
  };
  const print = (value: unknown, human: () => string) =>
    stdout(globals().json ? JSON.stringify(value, null, 2) + "\n" : human());

  program
    .command("login")
    .description("save an API key (and URL) in your config directory, readable only by you")
    .option("--key <key>", "the API key (else prompted)")
    .option("--url <url>", "the API base URL")
    .action(async (opts: { key?: string; url?: string }) => {
      let key = opts.key ?? globals().key;
      if (!key) {
        if (!process.stdin.isTTY)
          throw new UsageError("no key given: pass --key <key> (or run in a terminal to be prompted)");
        key = await ask("API key (Settings → API key in the dashboard): ");
      }
      const url = opts.url ?? globals().url ?? env.SERVICE_URL;
      const me = await createClient({ apiKey: key, baseUrl: url, noauth: false }).me();
      save({ url, apiKey: key });
      print({ user: me, config: configPath() }, () => `Logged in as ${me.email}. Key saved in ${configPath()}.\n`);
    });

  program
    .command("whoami")
    .description("the account you are calling as")
    .action(async () => {
      const me = await client().me();
      print(me, () => `${me.email}${me.username ? ` (@${me.username})` : ""}  ${me.id}\n`);
    });

  program
    .command("create <query>")
    .description("create a watch")
    .option("--when <condition>", "what counts as news (default: the query)")
    .option("--name <name>", "a name (default: the query)")
    .option("--email <address>", "notify this address")
    .option("--webhook <url>", "notify this URL (signed with Standard Webhooks)")
    .option("--notify <url>", NOTIFY_HELP, collect)
    .option("--paused", "create it paused")
    .option("--run", "run the first check now")
    .addOption(minConfidence())
    .addOption(minSources())
    .addOption(checkAtMostEvery())
    .addOption(checkAtLeastEvery())
    .action(
      async (
        query: string,
        o: { when?: string; name?: string; paused?: boolean; run?: boolean } & ChannelOptions & Bounds,
      ) => {
        const task = await client().watches.create({
          search_query: query,
          condition_description: o.when,
          name: o.name ?? query.slice(0, 200),
          state: o.paused ? "paused" : "active",
          run_immediately: o.run,
          notifications: notificationsFrom(o) ?? [],
          ...boundsFrom(o),
        });
        print(task, () => `Created ${task.id}\n${describeTask(task)}`);
      },
    );

  program
    .command("list")
    .description("your watches")
    .addOption(new Option("--state <state>", "only this state").choices(["active", "paused", "completed"]))
    .option("--limit <n>", "at most this many (newest first; default: all)", (v) => parsePositive(v))
    .option("--offset <n>", "skip this many first", (v) => parseCount(v))
    .action(async (o: { state?: Task["state"]; limit?: number; offset?: number }) => {
      if (o.limit === undefined && o.offset === undefined) {
        const tasks = await client().watches.list({ state: o.state });
        print(tasks, () => table(tasks.map(taskRow), ["id", "name", "state", "last", "next_run"]));
        return;
      }
      const { items, total } = await client().watches.page({ state: o.state, limit: o.limit ?? 50, offset: o.offset });
      const from = (o.offset ?? 0) + 1;
      print(items, () =>
        items.length
          ? `${table(items.map(taskRow), ["id", "name", "state", "last", "next_run"])}${from}–${from + items.length - 1} of ${total}\n`
          : `none (${total} in all)\n`,
      );
    });

  program
    .command("show <id>")
    .description("one watch, with its latest answer")
    .action(async (id: string) => {
      const task = await client().watches.get(id);
      print(task, () => describeTask(task));
    });

  program
    .command("update <id>")
    .description("change a watch (only the options given)")
    .option("--name <name>")
    .option("--query <query>")
    .option("--when <condition>")
    .option("--email <address>", "replace the email channel")
    .option("--webhook <url>", "replace the webhook channel")
    .option("--notify <url>", `${NOTIFY_HELP}; replaces the channel of its type`, collect)
    .addOption(minConfidence())
    .addOption(minSources())
    .addOption(checkAtMostEvery())
    .addOption(checkAtLeastEvery())
    .action(async (id: string, o: { name?: string; query?: string; when?: string } & ChannelOptions & Bounds) => {
      const c = client();
      const notifications = notificationsFrom(
        o,
        o.email !== undefined || o.webhook !== undefined || o.notify?.length
          ? ((await c.watches.get(id)).notifications as Notification[])
          : [],
      );
      const changes = {
        name: o.name,
        search_query: o.query,
        condition_description: o.when,
        notifications,
        ...boundsFrom(o),
      };
      if (Object.values(changes).every((v) => v === undefined))
        throw new UsageError(
          "nothing to change: give --name, --query, --when, --email, --webhook, --notify or a bound",
        );
      const task = await c.watches.update(id, changes);
      print(task, () => describeTask(task));
    });

  for (const [name, state, verb] of [
    ["pause", "paused", "Paused"],
    ["resume", "active", "Resumed"],
    ["complete", "completed", "Completed"],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(`${name} a watch`)
      .action(async (id: string) => {
        const task = await client().watches.update(id, { state });
        print(task, () => `${verb} ${task.name} (${task.id})\n`);
      });
  }

  program
    .command("run <id>")
    .description("check a watch now")
    .option("--force", "start even if a check is pending or running")
    .option("--wait", "wait for the check to finish and print its result")
    .action(async (id: string, o: { force?: boolean; wait?: boolean }) => {
      const c = client();
      const started = await c.watches.execute(id, { force: o.force });
      const execution = o.wait ? await waitFor(c, id, started.id) : started;
      print(execution, () => table([executionRow(execution)], ["id", "status", "result", "started", "detail"]));
      if (o.wait && execution.status === "failed")
        throw new Error(`the check failed: ${execution.error_message ?? "no reason given"}`);
    });

  program
    .command("logs <id>")
    .description("a watch's checks, newest first")
    .option("--limit <n>", "how many", (v) => parsePositive(v), 20)
    .action(async (id: string, o: { limit: number }) => {
      const list = await client().watches.executions(id, { limit: o.limit });
      print(list, () => table(list.map(executionRow), ["id", "status", "result", "started", "detail"]));
    });

  program
    .command("findings <id>")
    .description("what a watch found, newest first: one entry per finding, with how many checks confirmed it")
    .option("--limit <n>", "how many (at most 100)", (v) => parsePositive(v), 20)
    .action(async (id: string, o: { limit: number }) => {
      const list = await client().watches.findings(id, { limit: Math.min(o.limit, 100) });
      print(list, () => (list.length ? list.map(findingText).join("\n") : "(no findings yet)\n"));
    });

  program
    .command("delete <id>")
    .description("delete a watch and its history")
    .option("--yes", "do not ask")
    .action(async (id: string, o: { yes?: boolean }) => {
      if (!o.yes) {
        if (!process.stdin.isTTY) throw new UsageError("refusing to delete without --yes when not run in a terminal");
        if (!/^y(es)?$/i.test(await ask(`Delete watch ${id} and its history? [y/N] `))) {
          stderr("Not deleted.\n");
          return;
        }
      }
      await client().watches.delete(id);
      print({ deleted: id }, () => `Deleted ${id}\n`);
    });

  for (const [name, isPublic] of [
    ["publish", true],
    ["unpublish", false],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(isPublic ? "make a watch public (needs a username)" : "make a watch private")
      .action(async (id: string) => {
        const c = client();
        const r = await c.watches.setVisibility(id, isPublic);
        print(r, () => (r.is_public ? `Public: ${c.config.baseUrl}/w/${id}\n` : `Private: ${id}\n`));
      });
  }

  program
    .command("fork <id>")
    .description("copy a public watch into your account (starts paused)")
    .option("--name <name>")
    .action(async (id: string, o: { name?: string }) => {
      const task = await client().watches.fork(id, { name: o.name });
      print(task, () => `Forked into ${task.id}\n${describeTask(task)}`);
    });

  const sends = program
    .command("sends")
    .description("notification delivery history (and `sends redeliver <id>`)")
    .addOption(new Option("--type <type>", "only this channel").choices(CHANNELS.map((c) => c.type)))
    .addOption(
      new Option("--event <event>", "only this event").choices([
        "task.condition_met",
        "task.condition_retracted",
        "task.run_failed",
        "task.run_recovered",
        "account.budget_exhausted",
        "task.test",
        "email.verification",
        "follow.confirmation",
        "digest.daily",
      ]),
    )
    .option("--watch <id>", "only this watch")
    .option("--limit <n>", "how many", (v) => parsePositive(v), 50)
    .action(async (o: { type?: NotificationType; event?: SendEvent; watch?: string; limit: number }) => {
      const r = await client().notifications.sends({
        notification_type: o.type,
        event: o.event,
        task_id: o.watch,
        limit: o.limit,
      });
      const rows = r.sends.map((s) => ({ ...s, type: s.notification_type }));
      print(
        r,
        () => table(rows, ["id", "created_at", "event", "type", "recipient", "status"]) + `${r.total} in total\n`,
      );
    });
  sends
    .command("redeliver <id>")
    .description("send a run's webhook again now (same webhook-id)")
    .action(async (id: string) => {
      const s = await client().notifications.redeliver(id);
      print(s, () => `Attempt ${s.attempt}: ${s.status}${s.error_message ? ` (${s.error_message})` : ""}\n`);
      if (s.status !== "sent") throw new Error(`the redelivery ${s.status}: ${s.error_message ?? "no reason given"}`);
    });

  program
    .command("history <id>")
    .description("how a watch's definition changed, newest first")
    .action(async (id: string) => {
      const list = await client().watches.history(id, { limit: 100 });
      const describe = (changes: Record<string, { from?: unknown; to?: unknown }>) =>
        Object.entries(changes)
          .map(([field, c]) => `  ${field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}\n`)
          .join("");
      print(list, () =>
        list.length
          ? list.map((h) => `${h.at}\n${describe(h.changes)}`).join("")
          : "(no changes since it was created)\n",
      );
    });

  program
    .command("preview <query>")
    .description("what the agent would answer now (saves nothing; counts one run)")
    .option("--when <condition>", "what counts as news (default: the query)")
    .addOption(minConfidence())
    .addOption(minSources())
    .action(async (query: string, o: { when?: string } & Bounds) => {
      const r = await client().watches.preview({
        search_query: query,
        condition_description: o.when,
        min_confidence: o.minConfidence,
        min_sources: o.minSources,
      });
      const held = r.condition_met && r.gate && !r.gate.passed ? ` (would be held: ${r.gate.reason})` : "";
      print(
        r,
        () =>
          `${r.condition_met ? "MET" : "not met"}${held}, confidence ${r.confidence}\n\n${r.answer}\n\n` +
          (r.sources.length ? r.sources.map((s) => `  ${s.url}\n`).join("") + "\n" : "") +
          `Next check would be ${r.next_run}: ${r.next_run_reason}\n`,
      );
    });

  program
    .command("follow <id>")
    .description("follow a public watch with your own channels (again: replaces them)")
    .option("--email <address>", "notify this address")
    .option("--webhook <url>", "notify this URL (signed with your webhook secret)")
    .option("--notify <url>", NOTIFY_HELP, collect)
    .action(async (id: string, o: ChannelOptions) => {
      const notifications = notificationsFrom(o);
      if (!notifications?.length) throw new UsageError("give --email, --webhook or --notify");
      const f = await client().follows.follow(id, notifications);
      print(f, () => `Following ${f.task_id}: ${f.notifications.map(channelLine).join(", ")}\n`);
    });

  program
    .command("unfollow <id>")
    .description("stop following a watch")
    .action(async (id: string) => {
      await client().follows.unfollow(id);
      print({ task_id: id, following: false }, () => `No longer following ${id}\n`);
    });

  program
    .command("following")
    .description("the public watches you follow")
    .action(async () => {
      const list = await client().follows.list();
      const rows = list.map((f) => ({
        id: f.task.id,
        name: f.task.name,
        status: f.task.resolution.status,
        channels: f.notifications.map((n) => n.type).join(", "),
        since: f.created_at,
      }));
      print(list, () => table(rows, ["id", "name", "status", "channels", "since"]));
    });

  program
    .command("settings")
    .description("your time zone, quiet hours and daily digest (shown, or changed by the options given)")
    .option("--timezone <zone>", "IANA time zone, e.g. Europe/Berlin")
    .option("--quiet-hours <HH:MM-HH:MM|off>", "hold email between these local times (webhooks never wait)")
    .addOption(
      new Option("--digest <mode>", "one email a day at 08:00 instead of one per finding").choices(["daily", "off"]),
    )
    .action(async (o: { timezone?: string; quietHours?: string; digest?: "daily" | "off" }) => {
      const c = client();
      const changes = {
        timezone: o.timezone,
        quiet_hours: o.quietHours === undefined ? undefined : parseQuietHours(o.quietHours),
        email_digest: o.digest,
      };
      const settings = Object.values(changes).every((v) => v === undefined)
        ? await c.settings.get()
        : await c.settings.update(changes);
      print(
        settings,
        () =>
          `time zone    ${settings.timezone}\n` +
          `quiet hours  ${settings.quiet_hours ? `${settings.quiet_hours.start} to ${settings.quiet_hours.end}` : "off"}\n` +
          `digest       ${settings.email_digest}\n`,
      );
    });

  program
    .command("usage")
    .description("your runs and tokens this month against your limits")
    .action(async () => {
      const c = client();
      const [usage, top] = await Promise.all([c.usage.get(), c.usage.byTask({ limit: 5 })]);
      const topRows = top.map((t) => ({ ...t, tokens: t.input_tokens + t.output_tokens }));
      print(
        { ...usage, top_tasks: top },
        () =>
          `This month (${usage.period_start.slice(0, 10)} to ${usage.period_end.slice(0, 10)}, UTC):\n` +
          `  runs            ${usage.runs} of ${usage.runs_limit}\n` +
          `  tokens          ${usage.input_tokens} in, ${usage.output_tokens} out\n` +
          `  active watches  ${usage.active_tasks} of ${usage.active_tasks_limit}\n\n` +
          (top.length ? table(topRows, ["task_id", "name", "runs", "tokens"]) : "No runs yet this month.\n"),
      );
    });

  program
    .command("export")
    .description(
      'every watch\'s definition as YAML (JSON with --json), for `watchctl apply`; secrets (webhook header values, chat URLs and tokens) are written as "<redacted>"',
    )
    .option("--include-secrets", "write secrets as they are (keep such a file out of version control)")
    .action(async (o: { includeSecrets?: boolean }) => {
      const { exportManifest } = await manifest();
      stdout(
        exportManifest(await client().watches.list(), globals().json ? "json" : "yaml", {
          includeSecrets: !!o.includeSecrets,
        }),
      );
    });

  program
    .command("apply")
    .description(
      'make your watches match a file from `watchctl export`: matched by name; creates missing, updates changed, never deletes; "<redacted>" keeps the stored value',
    )
    .requiredOption("-f, --file <file>", "the YAML or JSON file")
    .option("--dry-run", "print the plan, change nothing")
    .action(async (o: { file: string; dryRun?: boolean }) => {
      let source: string;
      try {
        source = fs.readFileSync(o.file, "utf8");
      } catch (e) {
        throw new UsageError(`cannot read ${o.file}: ${(e as Error).message}`);
      }
      const c = client();
      const { describeStep, ManifestError, parseManifest, plan } = await manifest();
      const watches = await c.watches.list();
      let steps: ReturnType<typeof plan>;
      try {
        steps = plan(parseManifest(source), watches);
      } catch (e) {
        throw e instanceof ManifestError ? new UsageError(e.message) : e;
      }
      const report: { plan: string; id?: string }[] = [];
      for (const step of steps) {
        const line = { plan: describeStep(step), id: step.kind === "create" ? undefined : step.id };
        report.push(line);
        if (!globals().json) stdout(`${line.plan}\n`);
        if (o.dryRun || step.kind === "unchanged") continue;
        const { is_public, state, ...definition } = step.definition;
        if (step.kind === "create") {
          // A watch cannot start completed: it is created paused.
          line.id = (await c.watches.create({ ...definition, state: state === "active" ? "active" : "paused" })).id;
          if (state === "completed") stderr(`  "${step.name}" was completed; created paused\n`);
          if (is_public) await c.watches.setVisibility(line.id, true);
          continue;
        }
        const changes = Object.fromEntries(
          step.fields.filter((f) => f !== "is_public").map((f) => [f, step.definition[f]]),
        );
        if (Object.keys(changes).length) await c.watches.update(step.id, changes);
        if (step.fields.includes("is_public")) await c.watches.setVisibility(step.id, is_public);
      }
      if (globals().json) stdout(JSON.stringify({ dry_run: !!o.dryRun, steps: report }, null, 2) + "\n");
    });

  program
    .command("mcp")
    .description(
      "serve Watch's tools to an AI assistant (Claude Desktop, Claude Code, any MCP client) over stdio, as your account",
    )
    .action(async () => {
      const { serveStdio } = await import("./mcp");
      // A tool call may run the agent once (preview_watch): allow it the server's own run timeout and more.
      await serveStdio({ ...client().config, timeoutMs: MCP_CALL_TIMEOUT_MS }, (line) => stderr(`${line}\n`));
    });

  const keys = program.command("keys").description("your API key");
  keys
    .command("create <name>")
    .description("create a key (shown once)")
    .action(async (name: string) => {
      const r = await client().apiKeys.create(name);
      print(r, () => `${r.key}\nSave it now: it is shown only once.\n`);
    });
  keys
    .command("list")
    .description("your keys")
    .action(async () => {
      const list = await client().apiKeys.list();
      print(list, () =>
        table(
          list.map((k) => ({ ...k, active: k.is_active ? "yes" : "revoked" })),
          ["id", "name", "key_prefix", "active", "created_at", "last_used_at"],
        ),
      );
    });
  keys
    .command("revoke <id>")
    .description("revoke a key at once")
    .action(async (id: string) => {
      const r = await client().apiKeys.revoke(id);
      print(r, () => `Revoked ${id}\n`);
    });

  return program;
}

type Bounds = { minConfidence?: number; minSources?: number; checkAtMostEvery?: number; checkAtLeastEvery?: number };

const minConfidence = () =>
  new Option("--min-confidence <0-1>", "notify only for findings at least this confident (default 0.6)").argParser(
    parseConfidence,
  );
const minSources = () =>
  new Option("--min-sources <n>", "notify only when this many independent sites confirm it (1-5, default 1)").argParser(
    parsePositive,
  );
const checkAtMostEvery = () =>
  new Option("--check-at-most-every <duration>", "the agent checks no more often than this, e.g. 1h").argParser(
    parseMinutes,
  );
const checkAtLeastEvery = () =>
  new Option("--check-at-least-every <duration>", "the agent checks at least this often, e.g. 7d").argParser(
    parseMinutes,
  );

const boundsFrom = (o: Bounds) => ({
  min_confidence: o.minConfidence,
  min_sources: o.minSources,
  min_interval_minutes: o.checkAtMostEvery,
  max_interval_minutes: o.checkAtLeastEvery,
});

function parseConfidence(v: string) {
  const n = Number(v);
  if (v.trim() === "" || !(n >= 0 && n <= 1)) throw new UsageError(`expected a confidence between 0 and 1, got "${v}"`);
  return n;
}

/** "90", "90m", "1h", "7d" → minutes. */
function parseMinutes(v: string) {
  const match = /^(\d+)\s*(m|min|h|d)?$/i.exec(v.trim());
  if (!match) throw new UsageError(`expected a duration like 30m, 1h or 7d, got "${v}"`);
  const unit = { m: 1, min: 1, h: 60, d: 1440 }[(match[2] ?? "m").toLowerCase() as "m" | "min" | "h" | "d"];
  return Number(match[1]) * unit;
}

/** "22:00-07:00" → {start, end}; "off" → null (the server checks the times). */
function parseQuietHours(v: string) {
  if (v.trim().toLowerCase() === "off") return null;
  const match = /^\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/.exec(v);
  if (!match) throw new UsageError(`expected quiet hours like 22:00-07:00, or off; got "${v}"`);
  const pad = (t: string) => t.padStart(5, "0");
  return { start: pad(match[1]!), end: pad(match[2]!) };
}

function parsePositive(v: string) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive whole number, got "${v}"`);
  return n;
}

function parseCount(v: string) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`expected a whole number (0 or more), got "${v}"`);
  return n;
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
