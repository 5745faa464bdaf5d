/** Global setup of every project with a database: the template each test database and test server copies. */
import type { TestProject } from "vitest/node";
import { ensureBuild, TEMPLATE } from "./helpers/server";

export default async function setup(project: TestProject) {
  // The HTTP tier's build (a child process) runs while this process makes the template; its own setup awaits it. A
  // failed build is that setup's to report.
  if (project.name === "http") ensureBuild().catch(() => {});
  const g = globalThis as { __watchTemplate?: Promise<void> };
  return (g.__watchTemplate ??= (async () => {
    if (process.env[TEMPLATE]) return;
    const started = Date.now();
    const { firstStart } = await import("./helpers/service");
    const first = await firstStart();
    process.env[TEMPLATE] = first.databaseUrl ? new URL(first.databaseUrl).pathname.slice(1) : first.dataDir;
    console.log(`test database template made in ${Math.round((Date.now() - started) / 1000)} s`);
  })());
}
