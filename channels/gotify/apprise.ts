/** `gotify[s]://host[:port][/path]/AppToken[?priority=…]`. */
import { AppriseError, isHostname, unquote, type Apprise } from "../kit/apprise";
import type { Priority } from "./payload";

const FORM = "gotify[s]://host[:port][/path]/AppToken";

/** Apprise's priorities, matched as a prefix in this order ("10" before "1"); one it does not know is normal. */
const LEVELS: [string, Priority][] = [
  ["10", "emergency"],
  ...["0", "1", "2", "l"].map((p): [string, Priority] => [p, "low"]),
  ...["3", "4", "m"].map((p): [string, Priority] => [p, "moderate"]),
  ...["5", "6", "7", "n"].map((p): [string, Priority] => [p, "normal"]),
  ...["8", "9", "h"].map((p): [string, Priority] => [p, "high"]),
  ["e", "emergency"],
];
const priorityOf = (value: string | undefined): Priority =>
  LEVELS.find(([prefix]) => (value ?? "").trim().toLowerCase().startsWith(prefix))?.[1] ?? "normal";

export const apprise: Apprise = {
  schemes: ["gotify", "gotifys"],
  example: "gotifys://push.example.com/AppToken",
  options: ["priority"],
  // gotify[s]://[user:password@]host[:port][/path…]/token: the last path part is the application's token, the rest
  // the server's path. A user and password are not sent by Apprise either (Gotify takes the token).
  parse(url) {
    const path = [...url.path];
    const token = path.pop();
    const host = isHostname(unquote(url.host));
    if (!host || !token) throw new AppriseError(`not a Gotify URL: ${FORM}`);
    const prefix = path.map((p) => `${encodeURIComponent(p)}/`).join("");
    return {
      url: `${url.scheme === "gotifys" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}/${prefix}`,
      token,
      priority: priorityOf(url.query.priority),
    };
  },
};
