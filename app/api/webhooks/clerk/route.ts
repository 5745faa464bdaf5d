/**
 * Clerk's webhooks (Svix-signed): accounts follow user.updated and user.deleted at once, each delivery once and never
 * an older profile over a newer one (server/users/clerk-accounts.ts).
 */
import { verifyWebhook } from "@clerk/backend/webhooks";
import { env } from "@/server/env";
import { applyClerkEvent } from "@/server/users/clerk-accounts";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  if (!env.CLERK_WEBHOOK_SECRET)
    return Response.json(
      { detail: "Clerk webhooks are not configured on this server: set CLERK_WEBHOOK_SECRET" },
      { status: 503 },
    );
  let event;
  try {
    event = await verifyWebhook(request, { signingSecret: env.CLERK_WEBHOOK_SECRET });
  } catch {
    return Response.json({ detail: "Invalid webhook signature" }, { status: 400 });
  }
  return Response.json({ status: await applyClerkEvent(event, request.headers.get("svix-id")) });
}
