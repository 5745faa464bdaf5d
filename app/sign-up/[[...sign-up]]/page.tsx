import { SignUp } from "@clerk/nextjs";
import { clerkPublishableKey, MaybeClerk, NotConfigured } from "../../dashboard/ui/clerk";
import { SignedInRedirect } from "../../dashboard/ui/signed-in-redirect";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign up" };

export default function SignUpPage() {
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
