import { ClerkProvider } from "@clerk/nextjs";
import type { ReactNode } from "react";
import { env } from "@/server/env";

export const clerkPublishableKey = () => env.NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY ?? env.CLERK_PUBLISHABLE_KEY;

/** Clerk's browser SDK only where it is needed (dashboard and sign-in), and only when Clerk is configured. */
export function MaybeClerk({ children }: { children: ReactNode }) {
  const publishableKey = clerkPublishableKey();
  if (!publishableKey) return children;
  return (
    <ClerkProvider publishableKey={publishableKey} signInUrl="/sign-in" signUpUrl="/sign-up" afterSignOutUrl="/">
      {children}
    </ClerkProvider>
  );
}

export function NotConfigured() {
  return (
    <main>
      <h1>Sign-in is not configured</h1>
      <p>
        This server has no Clerk keys. Locally, start it with <code>SERVICE_NOAUTH=1</code> and open{" "}
        <a href="/dashboard">the dashboard</a> from this machine: you are the test user, no sign-in needed.
      </p>
    </main>
  );
}
