/**
 * Clerk's session handshake for the dashboard and sign-in pages only: it refreshes an expired `__session`
 * cookie before the page renders. The API, public pages and docs never pass through it; without Clerk keys
 * (SERVICE_NOAUTH development) it does nothing.
 */
import { clerkMiddleware } from "@clerk/nextjs/server";
import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { env } from "./server/env";

const publishableKey = env.NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY ?? env.CLERK_PUBLISHABLE_KEY;
const clerk = publishableKey
  ? clerkMiddleware({
      publishableKey,
      secretKey: env.CLERK_SECRET_KEY,
      jwtKey: env.CLERK_JWT_KEY,
      apiUrl: env.CLERK_API_URL,
      authorizedParties: env.CLERK_AUTHORIZED_PARTIES?.split(",").map((s) => s.trim()),
      signInUrl: "/sign-in",
      signUpUrl: "/sign-up",
    })
  : null;

export default function proxy(req: NextRequest, event: NextFetchEvent) {
  return clerk ? clerk(req, event) : NextResponse.next();
}

export const config = { matcher: ["/dashboard/:path*", "/sign-in/:path*", "/sign-up/:path*"] };
