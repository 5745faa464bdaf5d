import { SignIn } from "@clerk/nextjs";
import { clerkPublishableKey, MaybeClerk, NotConfigured } from "../../dashboard/ui/clerk";
import { SignedInRedirect } from "../../dashboard/ui/signed-in-redirect";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default function SignInPage() {
  if (!clerkPublishableKey()) return <NotConfigured />;
  return (
    <MaybeClerk>
      <SignedInRedirect />
      <main className="center">
        <SignIn path="/sign-in" routing="path" signUpUrl="/sign-up" fallbackRedirectUrl="/dashboard" />
      </main>
    </MaybeClerk>
  );
}
