/** `apprise[s]://host[:port][/path]/KEY[?tags=…]` and a pasted `https://host/notify/KEY` URL of an Apprise API. */
import { AppriseError, isHostname, unquote, type Apprise } from "../kit/apprise";

const FORM = "apprise[s]://host[:port]/key (the key holds letters, digits, _ and -)";
export const KEY = /^[A-Za-z0-9_-]{1,128}$/;

export const apprise: Apprise = {
  schemes: ["apprise", "apprises"],
  example: "apprises://apprise.example.com/my-key",
  options: ["token", "to", "tags", "tag", "method"],
  // apprise[s]://[user[:password]@]host[:port][/path…]/KEY[?token=KEY&to=KEY&tags=a,b&method=json|form&+Header=v]:
  // the key is ?token=, else ?to=, else the last path part; the parts before it are the API's path.
  parse(url) {
    const q = url.query;
    const path = [...url.path];
    const key = q.token ?? q.to ?? path.pop();
    const host = isHostname(unquote(url.host));
    if (!host || !key || !KEY.test(key)) throw new AppriseError(`not an Apprise API URL: ${FORM}`);
    if (url.user || url.password)
      throw new AppriseError(
        "Apprise API logins (user[:password]@) are not supported: put the API behind a URL that needs no login",
      );
    if (Object.keys(q).some((k) => k.startsWith("+")))
      throw new AppriseError("custom HTTP headers (+Header=value) are not supported");
    const method = q.method?.toLowerCase();
    if (method && method !== "json" && method !== "form")
      throw new AppriseError("the Apprise API method= must be json or form");
    // Apprise reads tags as a list (split on commas and spaces) and the API takes a list as "any of them": one
    // comma-separated string says the same.
    const tags = (q.tags ?? q.tag ?? "").split(/[\s,]+/).filter(Boolean);
    const origin = `${url.scheme === "apprises" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}`;
    const prefix = path.map((p) => `/${encodeURIComponent(p)}`).join("");
    return { url: `${origin}${prefix}/notify/${key}`, ...(tags.length ? { tags: tags.join(", ") } : {}) };
  },
  // A pasted `/notify/KEY` URL of an Apprise API, as Apprise reads it (its key up to 128 characters here).
  native: (raw) => {
    const m = /^http(s?):\/\/([^/?#]+)((?:\/[^/?#]+)*)\/notify\/([a-z0-9_-]{1,128})\/?(\?.*)?$/i.exec(raw);
    return m ? `apprise${m[1]}://${m[2]}${m[3]}/${m[4]}${m[5] ?? ""}` : null;
  },
};
