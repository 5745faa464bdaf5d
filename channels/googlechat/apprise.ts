/** `gchat://workspace/key/token[/threadKey]` and a pasted `https://chat.googleapis.com/v1/spaces/…` webhook URL. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

const FORM = "gchat://workspace/key/token";
export const API = "https://chat.googleapis.com/v1/spaces";

/** The webhook's URL with only its key and token (the thread goes in the config of its own). */
export const webhookUrl = (workspace: string, key: string, token: string) =>
  `${API}/${encodeURIComponent(workspace)}/messages?${new URLSearchParams({ key, token })}`;

export const apprise: Apprise = {
  schemes: ["gchat"],
  example: "gchat://workspace/key/token",
  // gchat://workspace/key/token[/threadKey], each also as ?workspace=, ?key=, ?token=, ?thread= (or threadKey=).
  parse(url) {
    const q = new Map([...url.searchParams].map(([k, v]) => [k.toLowerCase(), v]));
    const [ws, pathKey, pathToken, pathThread] = [hostPart(url), ...pathParts(url)];
    const workspace = q.get("workspace") ?? ws;
    const key = q.get("key") ?? pathKey;
    const token = q.get("token") ?? pathToken;
    const thread = q.get("thread") ?? q.get("threadkey") ?? pathThread;
    if (!workspace || !key || !token) throw new AppriseError(`not a Google Chat webhook: ${FORM}`);
    return { url: webhookUrl(workspace, key, token), ...(thread ? { thread_key: thread } : {}) };
  },
  // A pasted webhook URL: its threadKey becomes the config's; Watch sets the reply option itself.
  native(url) {
    const m = /^\/v1\/spaces\/([^/]+)\/messages\/*$/.exec(url.pathname);
    if (url.hostname !== "chat.googleapis.com" || !m) return null;
    const q = new Map([...url.searchParams].map(([k, v]) => [k.toLowerCase(), v]));
    const [key, token, thread] = [q.get("key"), q.get("token"), q.get("threadkey")];
    if (!key || !token) return null;
    return { url: webhookUrl(decodeURIComponent(m[1]!), key, token), ...(thread ? { thread_key: thread } : {}) };
  },
};
