/**
 * `.env.example` and the table of docs/configuration.md, both rendered from the declarations in server/env.ts so that
 * a variable, its description and its default are written once. `npm run env:example` writes them; a unit test
 * fails when they are out of step.
 */
import type { z } from "zod";
import { groups } from "./env";

type Variable = { name: string; description: string; fallback: string | undefined };

function variables(shape: Record<string, z.ZodType>): Variable[] {
  return Object.entries(shape).map(([name, schema]) => {
    const parsed = schema.safeParse(undefined);
    const value = parsed.success ? parsed.data : undefined;
    const fallback =
      typeof value === "number" || typeof value === "string" ? String(value) : value === false ? "0" : undefined;
    return { name, description: schema.description ?? "", fallback };
  });
}

export function renderEnvExample(): string {
  const out = [
    "# Every variable the Watch server reads, with its default. All are optional: `npm start` runs with none of them.",
    "# `npm start` reads .env, .env.production and .env.local from this folder (variables already set in the",
    "# environment win). Generated from server/env.ts by `npm run env:example`: edit the descriptions there.",
  ];
  for (const [group, shape] of Object.entries(groups)) {
    out.push("", `# ── ${group} ──`);
    for (const v of variables(shape)) out.push(`# ${v.description}`, `# ${v.name}=${v.fallback ?? ""}`);
  }
  return out.join("\n") + "\n";
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

export function renderEnvTable(): string {
  const out = ["| Variable | Default | Meaning |", "|---|---|---|"];
  for (const [group, shape] of Object.entries(groups)) {
    out.push(`| **${group}** | | |`);
    for (const v of variables(shape))
      out.push(
        `| \`${v.name}\` | ${v.fallback === undefined ? "unset" : `\`${v.fallback}\``} | ${cell(v.description)} |`,
      );
  }
  return out.join("\n") + "\n";
}

export const TABLE_START = "<!-- generated from server/env.ts by `npm run env:example`: start -->";
export const TABLE_END = "<!-- generated: end -->";

/** docs/configuration.md with its table replaced by the rendered one. */
export function withEnvTable(markdown: string): string {
  const a = markdown.indexOf(TABLE_START);
  const b = markdown.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error(`docs/configuration.md lacks the ${TABLE_START} … ${TABLE_END} markers`);
  return markdown.slice(0, a + TABLE_START.length) + "\n" + renderEnvTable() + markdown.slice(b);
}
