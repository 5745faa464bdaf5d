/**
 * Watches as a file under version control: `watchctl export` writes every watch's definition (YAML by default), and
 * `watchctl apply -f FILE` makes the account match it — watches are matched by name; missing ones are created,
 * changed ones updated, none deleted. The plan is computed here, without the network.
 */
import YAML from "yaml";
import { z } from "zod";
import type { Task } from "./index";

const Notification = z.union([
  z.object({ type: z.literal("email"), address: z.string() }).strict(),
  z
    .object({
      type: z.literal("webhook"),
      url: z.string(),
      method: z.enum(["POST", "PUT", "PATCH"]).default("POST"),
      headers: z.record(z.string(), z.string()).default({}),
    })
    .strict(),
]);

/** One watch's definition: what a file holds and what apply compares. */
const Definition = z
  .object({
    name: z.string().min(1),
    search_query: z.string().min(1),
    condition_description: z.string().optional(),
    state: z.enum(["active", "paused", "completed"]).default("active"),
    is_public: z.boolean().default(false),
    min_confidence: z.number().min(0).max(1).optional(),
    min_sources: z.number().int().min(1).max(5).optional(),
    min_interval_minutes: z.number().int().positive().optional(),
    max_interval_minutes: z.number().int().positive().optional(),
    notifications: z.array(Notification).default([]),
  })
  .strict();
export type Definition = z.infer<typeof Definition>;

const Manifest = z.object({ watches: z.array(Definition) }).strict();

export const FIELDS = [
  "search_query",
  "condition_description",
  "state",
  "is_public",
  "min_confidence",
  "min_sources",
  "min_interval_minutes",
  "max_interval_minutes",
  "notifications",
] as const;

export function definitionOf(t: Task): Definition {
  return {
    name: t.name,
    search_query: t.search_query,
    condition_description: t.condition_description,
    state: t.state,
    is_public: t.is_public,
    min_confidence: t.min_confidence,
    min_sources: t.min_sources,
    min_interval_minutes: t.min_interval_minutes,
    max_interval_minutes: t.max_interval_minutes,
    notifications: t.notifications.map((n) =>
      n.type === "email"
        ? { type: "email", address: n.address }
        : { type: "webhook", url: n.url, method: n.method, headers: n.headers },
    ),
  };
}

export function exportManifest(tasks: Task[], format: "yaml" | "json") {
  const manifest = { watches: tasks.map(definitionOf) };
  if (format === "json") return JSON.stringify(manifest, null, 2) + "\n";
  return `# Watches exported by watchctl. Apply with: watchctl apply -f <this file>\n${YAML.stringify(manifest)}`;
}

export class ManifestError extends Error {}

export function parseManifest(source: string): Definition[] {
  let data: unknown;
  try {
    data = YAML.parse(source); // JSON is YAML too
  } catch (e) {
    throw new ManifestError(`not valid YAML or JSON: ${(e as Error).message}`);
  }
  const parsed = Manifest.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ManifestError(`${issue.path.join(".") || "file"}: ${issue.message}`);
  }
  const seen = new Set<string>();
  for (const w of parsed.data.watches) {
    if (seen.has(w.name))
      throw new ManifestError(`two watches are named "${w.name}": names identify watches, make them unique`);
    seen.add(w.name);
  }
  return parsed.data.watches;
}

export type Step =
  | { kind: "create"; name: string; definition: Definition }
  | { kind: "update"; name: string; id: string; fields: (typeof FIELDS)[number][]; definition: Definition }
  | { kind: "unchanged"; name: string; id: string };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What apply would do: per file entry, create, update (which fields) or nothing. Fields a file omits keep their value. */
export function plan(wanted: Definition[], existing: Task[]): Step[] {
  return wanted.map((definition) => {
    const matches = existing.filter((t) => t.name === definition.name);
    if (matches.length > 1)
      throw new ManifestError(
        `${matches.length} of your watches are named "${definition.name}": rename all but one first`,
      );
    const current = matches[0];
    if (!current) return { kind: "create", name: definition.name, definition };
    const now = definitionOf(current);
    const fields = FIELDS.filter((f) => definition[f] !== undefined && !same(definition[f], now[f]));
    return fields.length
      ? { kind: "update", name: definition.name, id: current.id, fields, definition }
      : { kind: "unchanged", name: definition.name, id: current.id };
  });
}

export function describeStep(step: Step) {
  if (step.kind === "create") return `+ create "${step.name}"`;
  if (step.kind === "update") return `~ update "${step.name}": ${step.fields.join(", ")}`;
  return `= unchanged "${step.name}"`;
}
