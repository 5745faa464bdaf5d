import { ClerkProvider } from "@clerk/nextjs";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { clerkPublishableKey } from "@/server/env";

export { clerkPublishableKey };

/**
 * Clerk's browser SDK only where it is needed (dashboard and sign-in), and only when Clerk is configured. Its script
 * tag carries the page's nonce (proxy.ts); telemetry is off, so the policy allows Clerk's own hosts and nothing more.
 */
export async function MaybeClerk({ children }: { children: ReactNode }) {
  const publishableKey = clerkPublishableKey();
  if (!publishableKey) return children;
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <ClerkProvider
      publishableKey={publishableKey}
      nonce={nonce}
      telemetry={false}
      signInUrl="/sign-in"
      signUpUrl="/sign-up"
      afterSignOutUrl="/"
    >
      {children}
    </ClerkProvider>
  );
}

export function NotConfigured() {
  return (
    <main className="narrow">
      <div className="status-page">
        <h1>Sign-in is not configured</h1>
        <p className="lead">
          This server has no Clerk keys. Locally, start it with <code>SERVICE_NOAUTH=1</code> and open{" "}
          <a href="/dashboard">the dashboard</a> from this machine: you are the test user, no sign-in needed.
        </p>
      </div>
    </main>
  );
}
