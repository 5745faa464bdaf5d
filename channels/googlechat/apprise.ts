/** `gchat://workspace/key/token[/threadKey]` and a pasted `https://chat.googleapis.com/v1/spaces/…` webhook URL. */
import { AppriseError, unquote, type Apprise } from "../kit/apprise";

const FORM = "gchat://workspace/key/token";
export const API = "https://chat.googleapis.com/v1/spaces";

/** The webhook's URL with only its key and token (the thread goes in the config of its own). */
export const webhookUrl = (workspace: string, key: string, token: string) =>
  `${API}/${encodeURIComponent(workspace)}/messages?${new URLSearchParams({ key, token })}`;

export const apprise: Apprise = {
  schemes: ["gchat"],
  example: "gchat://workspace/key/token",
  options: ["workspace", "key", "token", "thread", "threadkey"],
  // gchat://workspace/key/token[/threadKey], each also as ?workspace=, ?key=, ?token=, ?thread= (or threadKey=).
  parse(url) {
    const q = url.query;
    const [pathKey, pathToken, pathThread] = url.path;
    const workspace = q.workspace ?? unquote(url.host);
    const key = q.key ?? pathKey;
    const token = q.token ?? pathToken;
    const thread = q.thread ?? q.threadkey ?? pathThread;
    if (!workspace || !key || !token) throw new AppriseError(`not a Google Chat webhook: ${FORM}`);
    return { url: webhookUrl(workspace, key, token), ...(thread ? { thread_key: thread } : {}) };
  },
  // A pasted webhook URL: its key, token and threadKey as Apprise reads them (Watch sets the reply option itself).
  native: (raw) => {
    const m = /^https:\/\/chat\.googleapis\.com\/v1\/spaces\/([a-z0-9_-]+)\/messages\/*(\?.+)$/i.exec(raw);
    return m ? `gchat://${m[1]}/${m[2]}` : null;
  },
};
