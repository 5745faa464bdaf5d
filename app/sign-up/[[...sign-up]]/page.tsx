import { SignUp } from "@clerk/nextjs";
import { env } from "@/server/env";
import { clerkPublishableKey, MaybeClerk, NotConfigured } from "../../dashboard/ui/clerk";
import { SignedInRedirect } from "../../dashboard/ui/signed-in-redirect";
import { WaitlistCard } from "../../ui/waitlist";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign up" };

export default function SignUpPage() {
  // While sign-ups are closed the page offers the waitlist (Clerk's own sign-up mode is what enforces it).
  if (env.SIGNUPS === "waitlist")
    return (
      <main className="narrow">
        <div className="page-header">
          <div>
            <h1>Sign up</h1>
          </div>
        </div>
        <WaitlistCard />
      </main>
    );
  if (!clerkPublishableKey()) return <NotConfigured />;
  return (
    <MaybeClerk>
      <SignedInRedirect />
      <main className="center">
        <SignUp path="/sign-up" routing="path" signInUrl="/sign-in" fallbackRedirectUrl="/dashboard" />
      </main>
    </MaybeClerk>
  );
}
