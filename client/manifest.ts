/**
 * Watches as a file under version control: `watchctl export` writes every watch's definition (YAML by default), and
 * `watchctl apply -f FILE` makes the account match it — watches are matched by name; missing ones are created,
 * changed ones updated, none deleted. The plan is computed here, without the network.
 *
 * Such a file gets committed and shared, so an export writes every secret of a channel (a webhook's header values, a
 * chat webhook URL, a bot or access token) as REDACTED unless asked to include them (the service itself never reads
 * back a chat channel's secret in full, so those stay redacted either way); apply reads REDACTED as "keep the value
 * the watch has".
 */
import YAML from "yaml";
import { z } from "zod";
import type { Notification, Task } from "./index";
import type { paths } from "./openapi";
import { channelOf, CHANNELS, mapSecrets as mapChannelSecrets, REDACTED } from "../channels";

/** Every channel, with the same schemas as the API's (strict: a misspelt field is an error, not ignored). */
const Notification = z.discriminatedUnion(
  "type",
  CHANNELS.map((c) => c.schema.strict()) as unknown as [z.ZodObject<{ type: z.ZodLiteral<string> }>],
) as unknown as z.ZodType<Notification>;

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

type CreateBody = paths["/api/v1/tasks"]["post"]["requestBody"]["content"]["application/json"];

/**
 * The fields apply compares and updates (a watch's name is what matches it). Every field of the API's create request
 * is listed, so a field the API adds fails to compile here until the file format carries it.
 */
const compared: Record<Exclude<keyof CreateBody, "name" | "run_immediately"> | "is_public", true> = {
  search_query: true,
  condition_description: true,
  state: true,
  is_public: true,
  min_confidence: true,
  min_sources: true,
  min_interval_minutes: true,
  max_interval_minutes: true,
  notifications: true,
};
export const FIELDS = Object.keys(compared) as (keyof typeof compared)[];

/** What an export writes in place of a secret; apply keeps the stored value where it finds it. */
export { REDACTED };

type Config = Definition["notifications"][number];

/**
 * A channel config with each secret (what its channel marks secret: a webhook's header values, a chat URL or
 * token) replaced by `f(value, what)`, `what` naming it for messages ("webhook header "Authorization"").
 */
const mapSecrets = (c: Config, f: (value: string, what: string) => string): Config =>
  mapChannelSecrets(channelOf(c.type), c, (value, what) => f(value, what));

/** The file's definition with every REDACTED value replaced by the one `current` has (a ManifestError if none). */
function withStoredSecrets(definition: Definition, current: Definition | undefined): Definition {
  const missing: string[] = [];
  const notifications = definition.notifications.map((c) => {
    const stored = new Map<string, string>();
    const was = current?.notifications.find((s) => s.type === c.type);
    if (was) mapSecrets(was, (value, what) => (stored.set(what.toLowerCase(), value), value));
    return mapSecrets(c, (value, what) => {
      if (value !== REDACTED) return value;
      const kept = stored.get(what.toLowerCase());
      if (kept === undefined) missing.push(what);
      return kept ?? value;
    });
  });
  if (missing.length)
    throw new ManifestError(
      `"${definition.name}": ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} ${REDACTED} and the watch has no value to keep: write the value in the file (or export with --include-secrets)`,
    );
  return { ...definition, notifications };
}

export function definitionOf(t: Task): Definition {
  return {
    name: t.name,
    ...(Object.fromEntries(FIELDS.map((f) => [f, t[f]])) as Omit<Definition, "name" | "notifications">),
    notifications: t.notifications.map((n) => ({ ...n }) as Notification),
  };
}

/** Every watch's definition, secrets written as REDACTED unless `includeSecrets`. */
export function exportManifest(tasks: Task[], format: "yaml" | "json", opts: { includeSecrets?: boolean } = {}) {
  const watches = tasks
    .map(definitionOf)
    .map((d) =>
      opts.includeSecrets ? d : { ...d, notifications: d.notifications.map((c) => mapSecrets(c, () => REDACTED)) },
    );
  const manifest = { watches };
  if (format === "json") return JSON.stringify(manifest, null, 2) + "\n";
  const secrets = opts.includeSecrets
    ? "# It holds secrets (webhook header values): keep it out of version control.\n"
    : `# Secrets are written as "${REDACTED}": apply keeps the values your watches have.\n`;
  return `# Watches exported by watchctl. Apply with: watchctl apply -f <this file>\n${secrets}${YAML.stringify(manifest)}`;
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

/**
 * What apply would do: per file entry, create, update (which fields) or nothing. Fields a file omits keep their value;
 * so does a secret written as REDACTED (the step's definition carries the stored value).
 */
export function plan(wanted: Definition[], existing: Task[]): Step[] {
  return wanted.map((fromFile) => {
    const matches = existing.filter((t) => t.name === fromFile.name);
    if (matches.length > 1)
      throw new ManifestError(
        `${matches.length} of your watches are named "${fromFile.name}": rename all but one first`,
      );
    const current = matches[0];
    const now = current && definitionOf(current);
    const definition = withStoredSecrets(fromFile, now);
    if (!current || !now) return { kind: "create", name: definition.name, definition };
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
