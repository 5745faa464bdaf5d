/** What an Apprise URL is to a channel: its schemes, an example, and how one (or the service's own URL) becomes its config. */
export class AppriseError extends Error {}

export type Apprise = {
  schemes: readonly string[];
  example: string;
  /** `raw` is the URL as typed (a Telegram token's colon makes it unparseable as a URL authority). AppriseError when it cannot. */
  parse(url: URL, raw: string): Record<string, unknown>;
  /** The service's own URL pasted as it is (a Slack webhook URL, an ntfy.sh topic): its config, else null. */
  native?(url: URL): Record<string, unknown> | null;
};

/** The parts of an Apprise URL's path, decoded, empty ones dropped. */
export const pathParts = (url: URL) =>
  url.pathname
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));

/** An Apprise URL's host part (where most services put their first token), decoded. */
export const hostPart = (url: URL) => decodeURIComponent(url.hostname);
