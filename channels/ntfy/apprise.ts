/** `ntfy://topic`, `ntfys://[token@]host/topic` and a pasted `https://ntfy.sh/topic`. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

export const CLOUD = "https://ntfy.sh";

export const apprise: Apprise = {
  schemes: ["ntfy", "ntfys"],
  example: "ntfy://my-topic",
  // ntfy://topic (ntfy.sh), ntfy[s]://[token@]host[:port]/topic; ntfys is https.
  parse(url) {
    const topics = [...pathParts(url), ...(url.searchParams.get("to")?.split(/[\s,]+/) ?? [])].filter(Boolean);
    const mode = url.searchParams.get("mode");
    const cloud = mode ? mode === "cloud" : topics.length === 0 || hostPart(url).toLowerCase() === "ntfy.sh";
    if (cloud && hostPart(url).toLowerCase() !== "ntfy.sh") topics.unshift(hostPart(url));
    if (topics.length !== 1) throw new AppriseError("one topic per ntfy channel: ntfy://topic or ntfys://host/topic");
    let token = url.searchParams.get("token");
    if (!token && url.username) {
      if (url.password || !/^tk_/i.test(decodeURIComponent(url.username)))
        throw new AppriseError("ntfy user names and passwords are not supported: use an access token (tk_…)");
      token = decodeURIComponent(url.username);
    }
    const server = cloud
      ? CLOUD
      : `${url.protocol === "ntfys:" ? "https" : "http"}://${hostPart(url)}${url.port ? `:${url.port}` : ""}`;
    return { url: `${server}/${encodeURIComponent(topics[0]!)}`, ...(token ? { token } : {}) };
  },
  native: (url) =>
    url.hostname.toLowerCase() === "ntfy.sh" && pathParts(url).length === 1 ? { url: url.toString() } : null,
};
