/**
 * The Content-Security-Policy of every page (set per request in proxy.ts, with a fresh nonce). Scripts run only
 * with the response's nonce, or when loaded by a script that has it ('strict-dynamic'); Next.js puts the nonce on its
 * own scripts when it renders a page. Inline event handlers never run. 'self' in script-src only serves browsers
 * without 'strict-dynamic'.
 */
import { clerkPublishableKey, env } from "../env";
import { forgetOnStop } from "../start-state";

/** Clerk's Frontend API host, which the publishable key encodes: pk_test_/pk_live_ + base64("<host>$"). */
export function clerkFrontendApi(publishableKey: string | undefined): string | null {
  const encoded = /^pk_(?:test|live)_([A-Za-z0-9+/]+={0,2})$/.exec(publishableKey ?? "")?.[1];
  const host = encoded ? /^([a-z0-9.-]+)\$$/i.exec(Buffer.from(encoded, "base64").toString("latin1"))?.[1] : undefined;
  return host ?? null;
}

/** Pages that load Clerk's browser SDK (app/dashboard/ui/clerk.tsx); the public pages allow none of its hosts. */
const CLERK_PAGES = /^\/(dashboard|sign-in|sign-up)(\/|$)/;

type Directives = Record<string, string[]>;

function policy(clerkHost: string | null): [string, string] {
  // Clerk's CSP requirements (clerk.com/docs, "Configure Clerk Content-Security-Policy headers"): its Frontend API
  // for the SDK and its requests, Cloudflare's bot check and Clerk's fraud protection, Clerk's image host.
  const clerk = clerkHost ? `https://${clerkHost}` : null;
  const directives: Directives = {
    "default-src": ["'self'"],
    "script-src": [
      "'self'",
      "NONCE",
      "'strict-dynamic'",
      ...(env.NODE_ENV === "development" ? ["'unsafe-eval'"] : []),
      ...(clerk ? [clerk, "https://challenges.cloudflare.com", "https://*.protect.clerk.com"] : []),
    ],
    // Inline style attributes are everywhere (React style props, sonner's toasts, Clerk's CSS-in-JS, Swagger UI);
    // styles cannot run script, and the one way outside text reaches a page (server/render) drops every style.
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", ...(clerk ? ["https://img.clerk.com"] : [])],
    "font-src": ["'self'"],
    "connect-src": ["'self'", ...(clerk ? [clerk, "https://*.protect.clerk.com:*"] : [])],
    ...(clerk ? { "worker-src": ["'self'", "blob:"] } : {}),
    "frame-src": clerk ? ["https://challenges.cloudflare.com", "https://*.protect.clerk.com"] : ["'none'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    // No page is meant to be framed. An embed route, if one is ever added, gets its own frame-ancestors here; the
    // badge is an image (an <img> needs no framing).
    "frame-ancestors": ["'none'"],
  };
  const text = Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
  const [before, after] = text.split("NONCE") as [string, string];
  return [before, after];
}

let parts: { clerk: [string, string]; plain: [string, string] } | undefined;
forgetOnStop(() => (parts = undefined));

/** The policy for the page at `pathname`, allowing scripts with `nonce`. */
export function contentSecurityPolicy(nonce: string, pathname: string): string {
  parts ??= { clerk: policy(clerkFrontendApi(clerkPublishableKey())), plain: policy(null) };
  const [before, after] = CLERK_PAGES.test(pathname) ? parts.clerk : parts.plain;
  return `${before}'nonce-${nonce}'${after}`;
}
