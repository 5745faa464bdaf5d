/**
 * `watchctl export` and `watchctl apply -f FILE`: watches as a file under version control (../manifest.ts). The
 * manifest module (and YAML with it) loads only for these two.
 */
import fs from "node:fs";
import { stderr, stdout, UsageError, type Cli } from "./context";

const manifest = () => import("../manifest");

export function register({ program, client, globals }: Cli) {
  program
    .command("export")
    .description(
      'every watch\'s definition as YAML (JSON with --json), for `watchctl apply`; secrets (webhook header values, chat URLs, ntfy topics and tokens) are written as "<redacted>"',
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
}
