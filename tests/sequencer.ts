import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest from start to end (measured with WATCH_TEST_TIMES, docs/development.md), slowest first.
 * Most of their time is waiting (backups and restores, the largest answers, restarts, windows of limits), so they start
 * first and the quick files fill the cores around them; started last, one of them alone made the run's final minutes.
 */
const SLOWEST = [
  "tests/http/data.test.ts",
  "tests/http/largest-answers.test.ts",
  "tests/http/mcp.test.ts",
  "tests/http/hardening-mail.test.ts",
  "tests/http/robustness.test.ts",
  "tests/http/operate.test.ts",
  "tests/http/email-settings.test.ts",
  "tests/http/auth.test.ts",
];

/** Vitest's order (each tier's files together, the last run's slowest first when it knows them), the slowest above first. */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.indexOf(path.relative(f.project.config.root, f.moduleId));
      return i === -1 ? SLOWEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
