/**
 * `ntfy://topic` (ntfy.sh), `ntfy://host/topic` and `ntfys://host/topic` (your own server, http or https as Apprise
 * sends), a token as `tk_…@`, `?token=` or `?auth=token` with the user or the password, and a pasted
 * `https://ntfy.sh/topic`. One topic per channel; user/password logins and what Watch sets itself per event (priority,
 * tags, click, icons) or does not send (e-mail forwarding, delays, attachments, actions) are refused by name.
 */
import { AppriseError, isHostname, unquote, type Apprise } from "../kit/apprise";

export const CLOUD = "https://ntfy.sh";

const TOPIC = /^[a-z0-9_-]{1,64}$/i;

/** Query options that change what a push does, each refused with what it is. */
const REFUSED: [names: string[], message: string][] = [
  [["email"], "ntfy e-mail forwarding (email=) is not supported"],
  [["tags", "xtags"], "ntfy tags (tags= / xtags=) are not supported: Watch sets the tags per event"],
  [["actions"], "ntfy action buttons (actions=) are not supported"],
  [["delay"], "ntfy delayed delivery (delay=) is not supported"],
  [["click"], "ntfy click actions (click=) are not supported: Watch links each message to its watch"],
  [["avatar_url"], "ntfy icon overrides (avatar_url=) are not supported"],
  [["attach", "filename"], "ntfy attachments (attach=, filename=) are not supported"],
];

export const apprise: Apprise = {
  schemes: ["ntfy", "ntfys"],
  example: "ntfy://my-topic",
  options: ["to", "token", "auth", "mode", "priority", ...REFUSED.flatMap(([names]) => names)],
  parse(url) {
    const q = url.query;
    if (q.mode !== undefined && !/^(cloud|private)$/i.test(q.mode))
      throw new AppriseError("the ntfy mode= must be cloud or private");
    if (q.auth !== undefined && !/^(basic|token)$/i.test(q.auth))
      throw new AppriseError("the ntfy auth= must be basic or token");
    const host = unquote(url.host);
    const named = [...url.path, ...(q.to ? [q.to] : [])];
    // As Apprise decides: a host name with topics is a server of your own, anything else the ntfy.sh short form.
    const cloud = q.mode ? q.mode.toLowerCase() === "cloud" : !(isHostname(host) && named.filter(Boolean).length);
    if (!cloud && !isHostname(host)) throw new AppriseError("not an ntfy URL: ntfy://topic or ntfys://host/topic");
    if (cloud && host && !/ntfy\.sh/i.test(host)) named.unshift(host);
    const topics = named.flatMap((t) => t.split(/[\s,]+/)).filter(Boolean);
    if (!topics.some((t) => TOPIC.test(t)))
      throw new AppriseError(
        "an ntfy URL needs a topic: ntfy://topic or ntfys://host/topic (a topic holds letters, digits, _ and -)",
      );
    if (topics.length > 1)
      throw new AppriseError("several ntfy topics in one URL are not supported: one topic per Watch channel");

    let token = q.token;
    if (!token && (url.user || url.password)) {
      if (q.auth?.toLowerCase() === "token") token = url.password || url.user!;
      else if (!url.password && /^tk_/i.test(url.user!)) token = url.user!;
      else
        throw new AppriseError(
          "ntfy user/password (basic auth) is not supported: use an access token (ntfy://tk_…@host/topic or ?auth=token)",
        );
    }
    if (!token && q.auth?.toLowerCase() === "token")
      throw new AppriseError(
        "auth=token without a token: Apprise would send nothing; give the token (ntfy://token@host/topic)",
      );
    if (cloud && token)
      throw new AppriseError(
        "credentials on the ntfy.sh short form are ignored by Apprise: write ntfys://token@ntfy.sh/topic to send with a token",
      );
    for (const [names, message] of REFUSED) if (names.some((n) => q[n] !== undefined)) throw new AppriseError(message);
    if (q.priority !== undefined && !/^(default|normal|3|)$/i.test(q.priority))
      throw new AppriseError("ntfy priorities (priority=) are not supported: Watch sets the priority per event");

    const server = cloud
      ? CLOUD
      : `${url.scheme === "ntfys" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}`;
    return { url: `${server}/${topics[0]}`, ...(token ? { token } : {}) };
  },
  native: (raw) => {
    const m = /^https?:\/\/ntfy\.sh(\/[^?]+)?(\?.+)?$/i.exec(raw);
    return m ? `ntfys://${m[1] ?? ""}${m[2] ? `${m[2]}&` : "?"}mode=cloud` : null;
  },
};
