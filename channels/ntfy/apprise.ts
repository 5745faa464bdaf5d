/** `ntfy://topic`, `ntfys://[token@]host/topic` and a pasted `https://ntfy.sh/topic`. */
import { AppriseError, unquote, type Apprise } from "../kit/apprise";

export const CLOUD = "https://ntfy.sh";

export const apprise: Apprise = {
  schemes: ["ntfy", "ntfys"],
  example: "ntfy://my-topic",
  parse(url) {
    const host = unquote(url.host);
    const topics = [...url.path, ...(url.query.to?.split(/[\s,]+/) ?? [])].filter(Boolean);
    const mode = url.query.mode;
    const cloud = mode ? mode === "cloud" : topics.length === 0 || host.toLowerCase() === "ntfy.sh";
    if (cloud && host.toLowerCase() !== "ntfy.sh" && host) topics.unshift(host);
    if (topics.length !== 1) throw new AppriseError("one topic per ntfy channel: ntfy://topic or ntfys://host/topic");
    let token = url.query.token;
    if (!token && url.user) {
      if (url.password || !/^tk_/i.test(url.user))
        throw new AppriseError("ntfy user names and passwords are not supported: use an access token (tk_…)");
      token = url.user;
    }
    const server = cloud
      ? CLOUD
      : `${url.scheme === "ntfys" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}`;
    return { url: `${server}/${encodeURIComponent(topics[0]!)}`, ...(token ? { token } : {}) };
  },
  native: (raw) => {
    const m = /^https?:\/\/ntfy\.sh(\/[^?]+)?(\?.+)?$/i.exec(raw);
    return m ? `ntfys://${m[1] ?? ""}${m[2] ? `${m[2]}&` : "?"}mode=cloud` : null;
  },
};
