/**
 * The landing page's waitlist form (works without JavaScript): same rules and bucket as the API. A form post is what
 * any web page can make its visitors' browsers send, so only this site's own page may: one from another site is
 * refused (the API's twin insists on a JSON body for the same reason).
 */
import { z } from "zod";
import { isDomainError } from "@/server/errors";
import { route } from "@/server/http/route";
import { isCrossSiteWrite } from "@/server/net/client-address.mjs";
import { joinWaitlist } from "@/server/public/service";

const back = (req: Request, params: Record<string, string>) =>
  Response.redirect(new URL(`/?${new URLSearchParams(params)}`, req.url), 303);

export const POST = route(
  { rateLimit: "waitlist", limited: (req, message) => back(req, { error: message }) },
  async (req) => {
    if (isCrossSiteWrite(req.method, (name) => req.headers.get(name)))
      return Response.json({ detail: "Cross-site form posts are refused" }, { status: 403 });
    const email = String((await req.formData().catch(() => null))?.get("email") ?? "");
    if (!z.email({ pattern: z.regexes.html5Email }).safeParse(email).success)
      return back(req, { error: "Please enter a valid email address." });
    try {
      const { position } = await joinWaitlist(email);
      return back(req, { joined: String(position) });
    } catch (e) {
      if (isDomainError(e, "conflict")) return back(req, { error: "This email is already on the waitlist." });
      throw e;
    }
  },
);
