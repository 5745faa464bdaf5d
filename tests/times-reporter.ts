/**
 * Where a run's time went, printed after Vitest's own summary: each tier's files, the sum of their times, and its span
 * (from its first file's start to its last file's end; files run side by side, so the sum is more than the span).
 * A file's time is all of it, from its worker taking it to its last test: imports, hooks (server starts) and tests.
 * With WATCH_TEST_TIMES=<path>, also writes the table of every file's time there (Markdown, slowest first), the one
 * docs/development.md shows.
 */
import fs from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

type Row = { file: string; tier: string; tests: number; seconds: number; start: number; end: number };

export default class TimesReporter implements Reporter {
  private started = Date.now();
  private times = new Map<string, { start: number; end: number }>();

  onTestRunStart() {
    this.started = Date.now();
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
    const rows: Row[] = modules.map((m) => {
      const { start, end } = this.times.get(m.id) ?? { start: this.started, end: this.started };
      return {
        file: path.relative(process.cwd(), m.moduleId),
        tier: m.project.name,
        tests: [...m.children.allTests()].length,
        seconds: (end - start) / 1000,
        start,
        end,
      };
    });
    rows.sort((a, b) => b.seconds - a.seconds);
    const tiers = new Map<string, Row[]>();
    for (const r of rows) tiers.set(r.tier, [...(tiers.get(r.tier) ?? []), r]);
    const wall = (Date.now() - this.started) / 1000;
    const summary = [...tiers].map(([tier, rs]) => {
      const sum = rs.reduce((s, r) => s + r.seconds, 0);
      const span = (Math.max(...rs.map((r) => r.end)) - Math.min(...rs.map((r) => r.start))) / 1000;
      return { tier, files: rs.length, tests: rs.reduce((s, r) => s + r.tests, 0), sum, span };
    });
    console.log(
      `\nTest time by tier (run ${wall.toFixed(0)} s): ` +
        summary
          .map(
            (t) => `${t.tier} ${t.files} files, ${t.sum.toFixed(0)} s of file time in a span of ${t.span.toFixed(0)} s`,
          )
          .join("; "),
    );
    const out = process.env.WATCH_TEST_TIMES;
    if (!out) return;
    const lines = [
      "| file | tier | tests | s |",
      "|---|---|---:|---:|",
      ...rows.map((r) => `| ${r.file} | ${r.tier} | ${r.tests} | ${r.seconds.toFixed(1)} |`),
      "",
      "| tier | files | tests | sum of file times (s) | span (s) |",
      "|---|---:|---:|---:|---:|",
      ...summary.map((t) => `| ${t.tier} | ${t.files} | ${t.tests} | ${t.sum.toFixed(0)} | ${t.span.toFixed(0)} |`),
      "",
      `run: ${wall.toFixed(0)} s`,
    ];
    fs.writeFileSync(out, lines.join("\n") + "\n");
  }
}
