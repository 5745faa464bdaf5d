/**
 * Every page gets a Content-Security-Policy with a fresh nonce (server/http/csp.ts), prefetches included: a page
 * fetched ahead (`<link rel=prefetch>`, `Purpose: prefetch`, the router's own) may be the one the browser shows.
 * Next.js reads the nonce from the request's policy header and puts it on the scripts it renders; pages render per
 * request (app/layout.tsx). Only headers are set here: no rewrite, no redirect (the node:http front in
 * scripts/start.mjs serves the requests). Headers every response needs (nosniff, Referrer-Policy, and a policy for
 * any other HTML) are set by that front.
 */
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "@/server/http/csp";

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = contentSecurityPolicy(nonce, request.nextUrl.pathname);
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: not the APIs (REST, tRPC, /auth, MCP), static files, Swagger UI's assets, the icons or a watch's
      // Open Graph image (a PNG other sites fetch).
      source:
        "/((?!api/|auth/|mcp$|_next/static/|_next/image|docs/assets/|favicon\\.ico|icon\\d*\\.(?:svg|png)|apple-icon\\d*\\.png|w/[^/]+/opengraph-image).*)",
    },
  ],
};
