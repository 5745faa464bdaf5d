/**
 * What a channel is, written once in its folder (channels/<type>/) and read by every side: the API validates and
 * documents its config with the zod schema built here from its fields, the dashboard's editor and watchctl ask for
 * the same fields, Apprise URLs become its config, and the server delivers a notice by the request its `delivery`
 * describes (through the server's own address-checked client: a channel never makes a request itself). Email and the
 * signed webhook have no `delivery`: the server sends those itself (server/notify).
 */
import { z } from "zod";
import type { Apprise } from "./apprise";
import type { HttpAnswer, HttpRequest, Outcome } from "./delivery";
import type { ChatMessage } from "./message";

export type FieldKind = "email" | "url" | "text" | "choice" | "headers";

/** How a person is asked for a config field (the dashboard's editor, watchctl's help), beside its wire schema. */
type FieldUi = {
  label: string;
  /** `choice` lists the schema's enum; `headers` (a webhook's) is kept by the editor, not edited there. */
  kind: FieldKind;
  placeholder?: string;
  /**
   * `write-only`: never read back; reads show it redacted (`"…" + last 4`; a URL shows its origin, then `/…` and the
   * last 4 of the rest), and sending that redacted value back keeps the stored one. `export`: readable by the owner,
   * written as "<redacted>" by `watchctl export` (a webhook's header values).
   */
  secret?: "write-only" | "export";
  /** What the API's documentation says of the field. */
  description?: string;
};

/** A config field as people are asked for it: derived from the channel's fields, in their order. */
export type Field = Omit<FieldUi, "description"> & {
  /** The config key. */
  name: string;
  choices?: readonly string[];
  optional: boolean;
};

type FieldDef<S extends z.ZodType = z.ZodType> = { schema: S; ui: FieldUi };

/** One config field: its wire schema (with `.optional()` or `.default()` when it may be left out) and how to ask for it. */
export const field = <S extends z.ZodType>(schema: S, ui: FieldUi): FieldDef<S> => ({
  schema: ui.description ? schema.meta({ description: ui.description }) : schema,
  ui,
});

/** A channel config as the API takes and shows it: `type` and the channel's fields. */
export type ChannelConfig = { type: string } & Record<string, unknown>;

/** What is wrong with a config, in words that never repeat a secret (the API answers `Invalid notification: …`). */
export class ConfigError extends Error {}

/** What a config's checks depend on: the operator's WEBHOOK_ALLOW_PRIVATE (plain http and private addresses). */
export type CheckContext = { allowPrivate: boolean };

type Fields = Record<string, FieldDef>;
type Settings = Record<string, z.ZodType>;
type Shape<T extends string, F extends Fields> = { type: z.ZodLiteral<T> } & { [K in keyof F]: F[K]["schema"] };
export type ConfigSchema<T extends string, F extends Fields> = z.ZodObject<Shape<T, F>>;
type SettingValues<S extends Settings> = { [K in keyof S]: z.output<S[K]> };

export type Delivery<C, S extends Settings = Settings> = {
  /** The request that delivers `message` to the channel's service. */
  request(message: ChatMessage, config: C, settings: SettingValues<S>): HttpRequest;
  /** How the service's answer reads (default `readAnswer`: 2xx sent, a 429's wait honoured). */
  read?(answer: HttpAnswer): Outcome;
};

type Definition<T extends string, F extends Fields, S extends Settings, C> = {
  type: T;
  label: string;
  /** Where to get what the fields ask for (the editor's inline help, `watchctl --help`, docs). */
  help: string;
  /** The config's name and description in the API's documentation (OpenAPI). */
  api: { id: string; description: string };
  fields: F;
  /** A config that passes its checks (the shared conformance tests deliver to it). */
  example: Omit<C, "type">;
  /** Checks past the shape, and normalisation; ConfigError with what is wrong. */
  check(config: C, context: CheckContext): C;
  /** One line naming where it goes, from a config as reads show it (secrets redacted). */
  summary(config: Record<string, unknown>): string;
  /** Apprise URL schemes that stand for this channel, and how one becomes its config. */
  apprise?: Apprise;
  /**
   * The operator's settings this channel reads (environment variables, e.g. TELEGRAM_API_URL): validated, documented
   * and handed to `delivery.request` by the server with the rest of its configuration.
   */
  settings?: S;
  /** How a notice reaches the service; absent for the channels the server sends itself (email, webhook). */
  delivery?: Delivery<C, S>;
};

export type Channel<
  T extends string = string,
  F extends Fields = Fields,
  S extends Settings = Settings,
  C = z.output<ConfigSchema<T, F>>,
> = Omit<Definition<T, F, S, C>, "fields" | "api"> & {
  /** The wire shape: input and reads, documented in OpenAPI under `api.id`. */
  schema: ConfigSchema<T, F>;
  fields: readonly Field[];
};

/** The enum a `choice` field offers (through its default or optional wrapper). */
function choicesOf(schema: z.ZodType): readonly string[] | undefined {
  const inner = "unwrap" in schema && typeof schema.unwrap === "function" ? (schema.unwrap() as z.ZodType) : schema;
  return inner instanceof z.ZodEnum ? (inner.options as string[]) : undefined;
}

export function defineChannel<const T extends string, F extends Fields, S extends Settings = Record<never, z.ZodType>>(
  def: Definition<T, F, S, z.output<ConfigSchema<T, F>>>,
): Channel<T, F, S> {
  const { fields, api, ...rest } = def;
  const shape = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.schema]));
  const schema = z
    .object({ type: z.literal(def.type), ...shape })
    .meta({ id: api.id, description: api.description }) as unknown as ConfigSchema<T, F>;
  return {
    ...rest,
    schema,
    fields: Object.entries(fields).map(([name, { schema: s, ui }]) => ({
      name,
      label: ui.label,
      kind: ui.kind,
      ...(ui.kind === "choice" ? { choices: choicesOf(s) } : {}),
      ...(ui.placeholder ? { placeholder: ui.placeholder } : {}),
      optional: s.safeParse(undefined).success,
      ...(ui.secret ? { secret: ui.secret } : {}),
    })),
  };
}
