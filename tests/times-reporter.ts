/**
 * Where a run's time went, printed after Vitest's own summary: per tier, its files, the sum of their wall times and its
 * span (first file's start to last file's end: files run side by side, so the sum is more than the span), the CPU
 * time they used (each file's worker and the servers it started: tests/usage-setup.ts) and the servers they started.
 * A file's wall time is all of it, from its worker taking it to its last test: imports, hooks and tests. CPU time and
 * server starts hardly change on a busy machine; wall times do.
 * With WATCH_TEST_TIMES=<path>, also writes the table of every file (Markdown, slowest first) there.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

type Usage = { file: string; cpuMs: number; starts: number };
type Row = {
  file: string;
  tier: string;
  tests: number;
  seconds: number;
  cpu: number;
  starts: number;
  start: number;
  end: number;
};

export default class TimesReporter implements Reporter {
  private started = Date.now();
  private times = new Map<string, { start: number; end: number }>();
  private usageDir = "";
  private cpu = process.cpuUsage();

  onTestRunStart() {
    this.started = Date.now();
    this.cpu = process.cpuUsage();
    // Inherited by the workers, which are started after this.
    this.usageDir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-test-usage-"));
    process.env.WATCH_TEST_USAGE_DIR = this.usageDir;
  }

  // Queued: its worker has it and starts to load it.
  onTestModuleQueued(m: TestModule) {
    this.times.set(m.id, { start: Date.now(), end: Date.now() });
  }

  onTestModuleEnd(m: TestModule) {
    const t = this.times.get(m.id);
    if (t) t.end = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const usage = new Map<string, Usage>();
    for (const f of fs.readdirSync(this.usageDir)) {
      const u = JSON.parse(fs.readFileSync(path.join(this.usageDir, f), "utf8")) as Usage;
      usage.set(u.file, u);
    }
    fs.rmSync(this.usageDir, { recursive: true, force: true });
    const rows: Row[] = modules.map((m) => {
      const { start, end } = this.times.get(m.id) ?? { start: this.started, end: this.started };
      const u = usage.get(m.moduleId);
      return {
        file: path.relative(process.cwd(), m.moduleId),
        tier: m.project.name,
        tests: [...m.children.allTests()].length,
        seconds: (end - start) / 1000,
        cpu: (u?.cpuMs ?? 0) / 1000,
        starts: u?.starts ?? 0,
        start,
        end,
      };
    });
    rows.sort((a, b) => b.seconds - a.seconds);
    const tiers = new Map<string, Row[]>();
    for (const r of rows) tiers.set(r.tier, [...(tiers.get(r.tier) ?? []), r]);
    const wall = (Date.now() - this.started) / 1000;
    const total = (rs: Row[], key: "tests" | "seconds" | "cpu" | "starts") => rs.reduce((s, r) => s + r[key], 0);
    const summary = [...tiers].map(([tier, rs]) => ({
      tier,
      files: rs.length,
      tests: total(rs, "tests"),
      sum: total(rs, "seconds"),
      span: (Math.max(...rs.map((r) => r.end)) - Math.min(...rs.map((r) => r.start))) / 1000,
      cpu: total(rs, "cpu"),
      starts: total(rs, "starts"),
    }));
    const runner = process.cpuUsage(this.cpu);
    console.log(
      `\nTime by tier (the whole run ${wall.toFixed(0)} s, setup included; the runner's own CPU ` +
        `${((runner.user + runner.system) / 1e6).toFixed(0)} s: transforms, the database template): ` +
        summary
          .map(
            (t) =>
              `${t.tier} ${t.files} files in ${t.span.toFixed(0)} s (${t.sum.toFixed(0)} s of file time, ` +
              `${t.cpu.toFixed(0)} s of CPU, ${t.starts} server starts)`,
          )
          .join("; "),
    );
    const out = process.env.WATCH_TEST_TIMES;
    if (!out) return;
    const lines = [
      "| file | tier | tests | wall s | CPU s | server starts |",
      "|---|---|---:|---:|---:|---:|",
      ...rows.map(
        (r) => `| ${r.file} | ${r.tier} | ${r.tests} | ${r.seconds.toFixed(1)} | ${r.cpu.toFixed(1)} | ${r.starts} |`,
      ),
      "",
      "| tier | files | tests | span s | sum of wall s | CPU s | server starts |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...summary.map(
        (t) =>
          `| ${t.tier} | ${t.files} | ${t.tests} | ${t.span.toFixed(0)} | ${t.sum.toFixed(0)} | ${t.cpu.toFixed(0)} | ${t.starts} |`,
      ),
      "",
      `whole run: ${wall.toFixed(0)} s`,
    ];
    fs.writeFileSync(out, lines.join("\n") + "\n");
  }
}
