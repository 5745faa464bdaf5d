"use client";
import { useAuth } from "@clerk/nextjs";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * The dashboard sends visitors whose session cookie has expired here; Clerk's browser SDK refreshes the
 * session on load, and a signed-in visitor goes straight back to the dashboard.
 */
export function SignedInRedirect() {
  const { isLoaded, isSignedIn } = useAuth();
  const router = useRouter();
  useEffect(() => {
    if (isLoaded && isSignedIn) router.replace("/dashboard");
  }, [isLoaded, isSignedIn, router]);
  return null;
}
