/** `apprise[s]://host[:port][/path]/KEY[?tags=…]` and a pasted `https://host/notify/KEY` URL of an Apprise API. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

const FORM = "apprise[s]://host[:port]/key (the key holds letters, digits, _ and -)";
export const KEY = /^[A-Za-z0-9_-]{1,128}$/;

export const apprise: Apprise = {
  schemes: ["apprise", "apprises"],
  example: "apprises://apprise.example.com/my-key",
  // apprise[s]://[user[:password]@]host[:port][/path…]/KEY[?token=KEY&to=KEY&tags=a,b&method=json|form&+Header=v]:
  // the key is ?token=, else ?to=, else the last path part; the parts before it are the API's path.
  parse(url) {
    const q = url.searchParams;
    const parts = pathParts(url);
    const key = q.get("token") ?? q.get("to") ?? parts.pop();
    if (!hostPart(url) || !key || !KEY.test(key)) throw new AppriseError(`not an Apprise API URL: ${FORM}`);
    if (url.username || url.password)
      throw new AppriseError(
        "Apprise API logins (user[:password]@) are not supported: put the API behind a URL that needs no login",
      );
    // `+Header=value` (a `+` a query parser would read as a space): an extra HTTP header.
    if (/[?&](\+|%2B)/i.test(url.search))
      throw new AppriseError("custom HTTP headers (+Header=value) are not supported");
    const method = q.get("method")?.toLowerCase();
    if (method && method !== "json" && method !== "form")
      throw new AppriseError("the Apprise API method= must be json or form");
    // Apprise reads tags as a list (split on commas and spaces) and the API takes a list as "any of them": one
    // comma-separated string says the same.
    const tags = (q.get("tags") ?? q.get("tag") ?? "").split(/[\s,]+/).filter(Boolean);
    const origin = `${url.protocol === "apprises:" ? "https" : "http"}://${url.host}`;
    const path = parts.map((p) => `/${encodeURIComponent(p)}`).join("");
    return { url: `${origin}${path}/notify/${key}`, ...(tags.length ? { tags: tags.join(", ") } : {}) };
  },
  native: (url) => (/\/notify\/[A-Za-z0-9_-]{1,128}\/?$/.test(url.pathname) ? { url: url.toString() } : null),
};
