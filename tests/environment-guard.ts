/**
 * Set up in every file of a tier whose worker runs file after file (not isolated): the process's environment must be
 * as the file found it when the file ends. The service reads its configuration once per process, so a variable one
 * file sets would silently configure the next file's service: such a file belongs in an isolated tier
 * (tests/vitest.config.ts).
 */
import { afterAll, expect } from "vitest";

const before = { ...process.env };

afterAll(() => {
  const changed = [...new Set([...Object.keys(before), ...Object.keys(process.env)])].filter(
    (key) => before[key] !== process.env[key],
  );
  if (changed.length)
    throw new Error(
      `${expect.getState().testPath} left the process's environment changed (${changed.join(", ")}): files of this tier share a worker; list it among the isolated ones in tests/vitest.config.ts, or restore what it changes`,
    );
});
