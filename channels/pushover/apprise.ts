/** `pover://UserKey@AppToken[/#GroupKey]`. */
import { AppriseError, parseBool, unquote, type Apprise } from "../kit/apprise";

const FORM = "pover://UserKey@AppToken";
const GROUP = /^\s*(%23|#)([a-z0-9]+)\s*$/i;
const DEVICE = /^\s*[a-z0-9_-]{1,25}\s*$/i;
/** Apprise's priorities by prefix or number; one it does not know is normal (0), what Watch sends. */
const PRIORITIES: [string, number][] = [
  ["l", -2],
  ["m", -1],
  ["n", 0],
  ["h", 1],
  ["e", 2],
];
const priorityOf = (value: string) => {
  const v = value.trim().toLowerCase();
  if (/^-?\d+$/.test(v)) return [-2, -1, 0, 1, 2].includes(Number(v)) ? Number(v) : 0;
  return PRIORITIES.find(([p]) => v.startsWith(p))?.[1] ?? 0;
};

export const apprise: Apprise = {
  schemes: ["pover"],
  example: "pover://UserKey@AppToken",
  options: ["to", "priority", "sound", "url", "url_title", "key", "e2ee", "expire", "interval", "retry"],
  // pover://UserKey@AppToken[/Device…|/#Group…][?priority=…&sound=…&url=…&url_title=…&key=…]
  parse(url) {
    const q = url.query;
    const token = unquote(url.host);
    const user = url.user;
    if (!token || !user) throw new AppriseError(`not a Pushover URL: ${FORM}`);
    if (q.key !== undefined && parseBool(q.e2ee, true))
      throw new AppriseError("Pushover end-to-end encryption (key=) is not supported");
    if (q.url !== undefined || q.url_title !== undefined)
      throw new AppriseError(
        "Pushover supplementary URLs (url=, url_title=) are not supported: Watch links each message to its watch",
      );
    if (q.priority !== undefined && priorityOf(q.priority) !== 0)
      throw new AppriseError(
        q.priority.toLowerCase().startsWith("e") || q.expire !== undefined || q.interval !== undefined
          ? "Pushover priorities (priority=emergency, interval=, expire=) are not supported"
          : "Pushover priorities (priority=) are not supported: Watch sends at normal priority",
      );
    if (q.sound !== undefined && q.sound.toLowerCase() !== "pushover")
      throw new AppriseError("Pushover sounds (sound=) are not supported: the user's default sound plays");
    const targets = [...url.path, ...(q.to?.split(/[\s,]+/) ?? [])].filter(Boolean);
    const groups = targets.flatMap((t) => GROUP.exec(t)?.[2] ?? []);
    if (targets.some((t) => !GROUP.test(t) && DEVICE.test(t)))
      throw new AppriseError("Pushover device targets are not supported: Watch sends to all of the user's devices");
    if (groups.length < targets.length)
      throw new AppriseError("one of the Pushover targets is not a device name or #group key (Apprise would drop it)");
    if (groups.length > 1)
      throw new AppriseError("several Pushover groups in one URL are not supported: one group per Watch channel");
    // A group's key takes the user key's place: Apprise sends it as `user`.
    return { token, user: groups[0] ?? user };
  },
};
