/** `watchctl preview <query>`: what the agent would answer now, saving nothing. */
import type { Cli } from "./context";
import { minConfidence, minSources, type Bounds } from "./options";

export function register({ program, client, print }: Cli) {
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
}
