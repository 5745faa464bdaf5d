#!/usr/bin/env node
// The `watchctl` bin: runs the TypeScript CLI (client/cli.ts) through tsx.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../client/cli.ts");
process.exitCode = await main(process.argv.slice(2));
