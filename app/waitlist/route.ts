/** The landing page's waitlist form (works without JavaScript): same rules and bucket as the API. */
import { z } from "zod";
import { joinWaitlist } from "@/server/public/service";
import { rateLimitMessage, takeToken } from "@/server/ratelimit";

export async function POST(req: Request) {
  const back = (params: Record<string, string>) => Response.redirect(new URL(`/?${new URLSearchParams(params)}`, req.url), 303);
  const verdict = await takeToken("waitlist", req.headers.get("x-watch-client-ip") ?? "unknown");
  if (!verdict.ok) return back({ error: rateLimitMessage(verdict.retryAfter) });
  const email = String((await req.formData().catch(() => null))?.get("email") ?? "");
  if (!z.email({ pattern: z.regexes.html5Email }).safeParse(email).success) return back({ error: "Please enter a valid email address." });
  try {
    const { position } = await joinWaitlist(email);
    return back({ joined: String(position) });
  } catch (e) {
    return back({ error: (e as Error).message === "Email already on waitlist" ? "This email is already on the waitlist." : "Something went wrong." });
  }
}
