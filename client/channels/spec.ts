/**
 * What a channel is to the people who type one: its config fields (which are secret), where to get its URL or token,
 * the Apprise URLs that stand for it, and a one-line summary. Pure data and functions, shared by the dashboard's channel
 * editor, watchctl and the SDK, and read by the server's channel registry (server/notify/channels), which adds
 * validation, rendering and delivery. One file per channel beside this one; ./index lists them.
 */
export type Field = {
  /** The config key. */
  name: string;
  label: string;
  /** How the dashboard asks for it: `choice` from `choices`; `headers` (a webhook's) is kept, not edited there. */
  kind: "email" | "url" | "text" | "choice" | "headers";
  choices?: readonly string[];
  placeholder?: string;
  optional?: boolean;
  /**
   * `write-only`: never read back; reads show it redacted (`"…" + last 4`; a URL shows its origin, then `/…` and the
   * last 4 of the rest), and sending that redacted value back keeps the stored one. `export`: readable by the owner,
   * written as "<redacted>" by `watchctl export` (a webhook's header values).
   */
  secret?: "write-only" | "export";
};

/** A channel config as the API takes and shows it: `type` and the channel's fields. */
export type ChannelConfig = { type: string } & Record<string, unknown>;

export class AppriseError extends Error {}

export type ChannelSpec = {
  type: string;
  label: string;
  /** Where to get what the fields ask for (the editor's inline help, `watchctl --help`, docs). */
  help: string;
  fields: readonly Field[];
  /** Apprise URL schemes that stand for this channel, and how one becomes its config (AppriseError when it cannot). */
  apprise?: {
    schemes: readonly string[];
    example: string;
    /** `raw` is the URL as typed (a Telegram token's colon makes it unparseable as a URL authority). */
    parse(url: URL, raw: string): Record<string, unknown>;
    /** The service's own URL pasted as it is (a Slack webhook URL, an ntfy.sh topic): its config, else null. */
    native?(url: URL): Record<string, unknown> | null;
  };
  /** One line naming where it goes, from a config as reads show it (secrets redacted). */
  summary(config: Record<string, unknown>): string;
};

/** A spec with its `type` kept as a literal (the registries derive their unions from it). */
export const defineSpec = <const T extends string>(spec: ChannelSpec & { type: T }) => spec;

/** The parts of an Apprise URL's path, decoded, empty ones dropped. */
export const pathParts = (url: URL) =>
  url.pathname
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));

/** An Apprise URL's host part (where most services put their first token), decoded. */
export const hostPart = (url: URL) => decodeURIComponent(url.hostname);
