/** `watchctl usage`: this month's runs and tokens against the limits, and the watches that ran most. */
import type { Cli } from "./context";
import { table } from "./format";

export function register({ program, client, print }: Cli) {
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
}
