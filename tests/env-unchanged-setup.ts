/**
 * Set up in the tier whose worker runs file after file (not isolated): a file must leave process.env as it found it,
 * or the next file in the same worker would run under its variables. One that needs its own goes with the stateful
 * unit files (tests/vitest.config.ts).
 */
import { afterAll } from "vitest";

const before = { ...process.env };

afterAll(() => {
  const changed = [...new Set([...Object.keys(before), ...Object.keys(process.env)])].filter(
    (k) => before[k] !== process.env[k],
  );
  if (changed.length)
    throw new Error(`this file changed process.env (${changed.join(", ")}): list it in STATEFUL_UNIT_FILES`);
});
