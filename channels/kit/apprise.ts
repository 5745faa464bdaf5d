/**
 * What an Apprise URL is to a channel, read the way Apprise reads it (its `url_to_dict` and `parse_url`, Apprise
 * 1.13): a `/#` in the path is a `#` of the path (a Slack channel), anything else after `#` is dropped; the part before
 * the first `?` is `user:password@host:port/path`, the path split on `/` and decoded; the query's keys are lower-cased
 * and its values decoded and trimmed. Each channel's parser then does what Apprise's plugin does with it, or refuses
 * with an AppriseError naming what Watch does not support, in words that never repeat the URL (it may hold a secret).
 */
import ipaddr from "ipaddr.js";

export class AppriseError extends Error {}

export type AppriseUrl = {
  /** The URL as typed, trimmed. */
  raw: string;
  scheme: string;
  /** Decoded; null when the URL has none. */
  user: string | null;
  password: string | null;
  /** As written (not decoded): a plugin decodes it where the host is a token (`unquote`). */
  host: string;
  port: number | null;
  /** The path's parts, decoded, empty ones dropped. */
  path: string[];
  /** The query: keys lower-cased, values decoded and trimmed. */
  query: Readonly<Record<string, string>>;
};

export type Apprise = {
  schemes: readonly string[];
  example: string;
  /**
   * The query options this channel's parser reads (Apprise's names). Every other option a URL carries changes nothing
   * in what Watch sends (Watch lays out its own message): it is accepted and reported as ignored.
   */
  options?: readonly string[];
  /** The config `url` stands for, or AppriseError saying what Watch does not support. */
  parse(url: AppriseUrl): Record<string, unknown>;
  /**
   * The service's own URL pasted as it is (`https://hooks.slack.com/services/…`, `https://ntfy.sh/topic`): the Apprise
   * URL it stands for, as Apprise's reading of that service's URLs gives it (then read by `parse`), or null when it is
   * not this service's. `raw` is the URL as typed (a default port such as `:443` is kept, as Apprise keeps it).
   */
  native?(raw: string): string | null;
};

/** Percent-decoding as Apprise's (Python's) `unquote`: a sequence that is not valid is kept as written. */
export function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9a-f]{2})/gi, (seq, hex: string) => {
        const code = parseInt(hex, 16);
        return code < 0x80 ? String.fromCharCode(code) : "\uFFFD";
      });
    }
  });
}

/** Apprise's `parse_bool`: yes/no, true/false, on/off, 1/0 and their abbreviations, else `fallback`. */
export function parseBool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const start = value.toLowerCase().slice(0, 2);
  if (["de", "di", "ne", "f", "n", "no", "of", "0", "fa"].includes(start)) return false;
  if (["en", "al", "t", "y", "ye", "on", "1", "tr"].includes(start)) return true;
  return fallback;
}

/** Apprise's `is_hostname` (underscores allowed, a trailing dot dropped), or an IP address; null when neither. */
export function isHostname(host: string): string | null {
  if (host.length === 0 || host.length > 253) return null;
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  const label = /^([a-z0-9][a-z0-9_-]{1,62}|[a-z_-])(?<![_-])$/i;
  if (name.split(".").every((l) => label.test(l))) return name;
  const ip = name.replace(/^\[|\]$/g, "");
  return ipaddr.isValid(ip) ? name : null;
}

function readQuery(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of query.split(/[&;]/)) {
    const eq = pair.indexOf("=");
    const [name, value] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const key = unquote(name.slice(0, 1) + name.slice(1).replace(/\+/g, " "));
    out[key.toLowerCase().trim()] = unquote(value).trim();
  }
  return out;
}

/**
 * An Apprise URL as Apprise reads it, null when Apprise could not. The host is not checked here (Slack, Discord,
 * Telegram and ntfy put tokens there): a service that needs a host name checks it with `isHostname`, as Apprise does.
 */
export function readAppriseUrl(input: string): AppriseUrl | null {
  const raw = input.trim();
  const m = /^\s*(?:([^:\s]+):[/\\]+)?(?:([^?]+)(?:\?(.+))?)?\s*$/s.exec(raw.replace(/\/#/g, "/%23"));
  if (!m?.[1]) return null;
  const query = m[3] ? readQuery(m[3].trim()) : {};
  // The rest as Python's urlparse reads "http://<rest>": the authority up to the first "/", the path up to a "#", and
  // a ";" in the last path segment starting parameters that are dropped.
  const rest = (m[2] ?? "").trim();
  const slash = rest.search(/[/#]/);
  let authority = slash < 0 ? rest : rest.slice(0, slash);
  let path = slash < 0 || rest[slash] === "#" ? "" : rest.slice(slash).replace(/#.*$/s, "");
  const lastSlash = path.lastIndexOf("/");
  if (path.indexOf(";", lastSlash) >= 0) path = path.slice(0, path.indexOf(";", lastSlash));
  if (/\[/.test(authority) !== /\]/.test(authority)) return null;

  let user: string | null = null;
  let password: string | null = null;
  const at = authority.split(/@+/);
  if (at.length >= 2) {
    [user, authority] = [at[0]!, at[1]!];
    const colon = user.split(/:+/);
    if (colon.length >= 2) [user, password] = [colon[0]!, colon[1]!];
  }
  let host = authority.trim();
  let port: number | null = null;
  const p = /^(\[[0-9a-f:]+\]|[^:]+):([^:]*)$/.exec(host);
  if (p) {
    host = p[1]!;
    if (/^\s*[+-]?\d+\s*$/.test(p[2]!)) port = Number(p[2]);
    else host = `${p[1]}:${p[2]}`;
  }
  // `?user=` names the user; a user written before the `@` is then the password (`PASSWORD@host?user=name`).
  if (query.user !== undefined && password === null) [user, password] = [null, user];
  return {
    raw,
    scheme: m[1].toLowerCase().trim(),
    user: query.user ?? (user === null ? null : unquote(user)),
    password: query.password ?? query.pass ?? (password === null ? null : unquote(password)),
    host,
    port,
    path: unquote(path)
      .split("/")
      .filter((part) => part.length > 0),
    query,
  };
}

/** The options `url` carries that `apprise` does not read, by name (a name that could be a value is not repeated). */
export function ignoredOptions(apprise: Apprise, url: AppriseUrl): string[] {
  if (!apprise.options) return [];
  const read = new Set([...apprise.options, "verify", "user", "password", "pass"]);
  const names = Object.keys(url.query).filter((k) => k && !read.has(k));
  const shown = names.filter((k) => /^[a-z][a-z_-]{0,23}$/.test(k));
  return shown.length < names.length ? [...shown, "an unknown option"] : shown;
}
